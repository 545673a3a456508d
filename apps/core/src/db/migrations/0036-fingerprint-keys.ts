import { Migration } from '@mikro-orm/migrations';

/**
 * Fingerprint keys rotate (keys/reencrypt.ts): during a rotation two fingerprint keys are live, so the one
 * fingerprint key per database goes. A fingerprint names its key (`f<key id>:<HMAC>`), except those of the
 * fingerprint keys made before this migration, whose bare HMACs are stored everywhere: those keys become
 * `legacy` (their format is v1's), one legacy key per purpose.
 */
export class FingerprintKeys extends Migration {
  override up(): void {
    this.addSql('drop index "data_key_one_fingerprint"');
    this.addSql('drop index "data_key_one_legacy"');
    this.addSql(`create unique index "data_key_one_legacy" on "data_key" ("purpose") where "legacy"`);
    this.addSql(`update "data_key" set "legacy" = true where "purpose" = 'fingerprint'`);
  }
}
