import { Migration } from '@mikro-orm/migrations';

/**
 * Envelope encryption (keys/): the data keys, each wrapped by the key provider's key-encryption key, and the
 * re-encryption a rotation runs.
 * - `data_key`: `encryption` keys seal card data (`v2:<id>:...`), the one `legacy` key opens the `v1` values
 *   sealed before this migration; the `fingerprint` key makes card, IBAN and idempotency fingerprints. A key
 *   seals from `activates_at`, once every core has learnt it. A retired key has its wrapped material erased.
 *   `check_value` (keys/provider.ts) proves an unwrapped key is the one stored.
 * - `key_reencryption`: per rotation (the key it made current) and table, how far the job has come.
 */
export class DataKeys extends Migration {
  override up(): void {
    this.addSql(`create table "data_key" (
      "id" serial primary key,
      "purpose" varchar(16) not null check ("purpose" in ('encryption', 'fingerprint')),
      "legacy" boolean not null default false,
      "kek_id" varchar(200) not null,
      "wrapped" bytea null,
      "check_value" varchar(32) not null,
      "activates_at" timestamptz not null default now(),
      "created_at" timestamptz not null default now(),
      "retired_at" timestamptz null,
      constraint "data_key_retired_erased" check (("retired_at" is null) = ("wrapped" is not null)))`);
    this.addSql(`create unique index "data_key_one_legacy" on "data_key" ("legacy") where "legacy"`);
    this.addSql(`create unique index "data_key_one_fingerprint" on "data_key" ("purpose")
      where "purpose" = 'fingerprint'`);
    this.addSql(`create table "key_reencryption" (
      "key_id" integer not null references "data_key" ("id"),
      "table_name" varchar(32) not null,
      "last_row" text null,
      "rows_reencrypted" bigint not null default 0,
      "finished_at" timestamptz null,
      "updated_at" timestamptz not null default now(),
      primary key ("key_id", "table_name"))`);
  }
}
