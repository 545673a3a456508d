import { Migration } from '@mikro-orm/migrations';

/**
 * Logins that resist guessing, and fingerprints that reveal nothing:
 * - every merchant carries a credentials generation, bumped by a trigger whenever its password hash
 *   changes, whoever writes it (the merchant CLI, the launcher, a hand-run update); facades drop cached
 *   verdicts whose generation moved;
 * - failed logins are counted per key (a username, a client address) in one table all cores share;
 * - stored idempotency fingerprints were plain SHA-256 digests of bodies holding card numbers and CVVs.
 *   They cannot be turned into keyed ones here (the key is not the database's), so they are cleared: such a
 *   record still replays its answer to a retry until it expires (never a second payment); only its check
 *   that the retry is the same request is lost for the at most 24 hours it has left.
 */
export class LoginSecurity extends Migration {
  override up(): void {
    this.addSql('alter table "merchant" add column "credentials_generation" bigint not null default 1');
    this.addSql(`create function "merchant_credentials_changed"() returns trigger language plpgsql as $$
      begin
        new.credentials_generation := old.credentials_generation + 1;
        return new;
      end $$`);
    this.addSql(`create trigger "merchant_credentials_generation" before update of "password_hash" on "merchant"
      for each row when (new.password_hash is distinct from old.password_hash)
      execute function "merchant_credentials_changed"()`);

    this.addSql(`create table "login_failure" (
      "key" varchar(300) primary key,
      "failures" integer not null,
      "free_failures" integer not null,
      "last_failure_at" timestamptz not null,
      "blocked_until" timestamptz null)`);
    this.addSql('create index "login_failure_last_failure_at_idx" on "login_failure" ("last_failure_at")');

    this.addSql('alter table "idempotency_record" alter column "fingerprint" drop not null');
    this.addSql('update "idempotency_record" set "fingerprint" = null');
  }
}
