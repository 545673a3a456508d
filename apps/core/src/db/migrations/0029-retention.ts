import { Migration } from '@mikro-orm/migrations';

/**
 * IPN secrets sealed by the card vault (docs/security.md, IPN secrets): one row per secret, the current one
 * (no `retires_at`) and, after a rotation, the previous one until its overlap ends. The plain
 * `merchant.ipn_secret` values cannot be sealed here (the key is not the database's): core seals each on
 * its first use, or at a worker's start, and clears the column.
 *
 * Retention (docs/security.md, Retention): a removed card keeps the facts its transactions show (brand, last
 * four, expiry) and loses its sealed number and its fingerprint; a deleted shopper keeps its row for its
 * transactions' sake and loses its personal data. The retention sweep finds expired token cards and old IPN
 * deliveries through the two indexes.
 */
export class Retention extends Migration {
  override up(): void {
    this.addSql('alter table "stored_card" alter column "sealed_number" drop not null');
    this.addSql('alter table "stored_card" alter column "fingerprint" drop not null');
    this.addSql('alter table "stored_card" add column "removed_at" timestamptz null');
    this.addSql(`alter table "stored_card" add constraint "stored_card_removed_check"
      check (("removed_at" is null) = ("sealed_number" is not null and "fingerprint" is not null))`);
    this.addSql('alter table "shopper" add column "deleted_at" timestamptz null');
    this.addSql(`create index "payment_fields_token_sealed_expiry_idx" on "payment_fields_token" ("expires_at")
      where "sealed_card" is not null`);
    this.addSql('create index "ipn_delivery_created_at_idx" on "ipn_delivery" ("created_at")');
    this.addSql(`create table "ipn_secret" (
      "id" bigserial primary key,
      "merchant_id" integer not null references "merchant" ("id"),
      "sealed_secret" text not null,
      "created_at" timestamptz not null default now(),
      "retires_at" timestamptz null)`);
    this.addSql(`create unique index "ipn_secret_current_idx" on "ipn_secret" ("merchant_id")
      where "retires_at" is null`);
  }
}
