import { Migration } from '@mikro-orm/migrations';

/**
 * The account updater (account-updater/): a merchant's batches of cards, each card's line with what the
 * updater answers for it (kept until the batch's answer is due by the merchant's clock), and a vaulted card's
 * closure by its issuer. Lines keep no card number: a fingerprint finds the vaulted cards an answer updates.
 */
export class AccountUpdater extends Migration {
  override up(): void {
    this.addSql(`create table "account_update_batch" (
      "id" bigint generated always as identity primary key,
      "merchant_id" integer not null references "merchant" ("id"),
      "batch_id" varchar(25) not null,
      "submitted_at" timestamptz not null,
      "due_at" timestamptz not null,
      "answered_at" timestamptz null,
      constraint "account_update_batch_merchant_batch_id" unique ("merchant_id", "batch_id"))`);
    this.addSql(`create index "account_update_batch_due" on "account_update_batch" ("due_at")
      where "answered_at" is null`);
    this.addSql(`create index "account_update_batch_answered" on "account_update_batch" ("answered_at")
      where "answered_at" is not null`);
    this.addSql(`create table "account_update" (
      "id" bigint generated always as identity primary key,
      "batch_id" bigint not null references "account_update_batch" ("id") on delete cascade,
      "merchant_id" integer not null references "merchant" ("id"),
      "position" integer not null,
      "merchant_updater_id" varchar(100) not null,
      "card_fingerprint" varchar(64) null,
      "card_type" varchar(20) null,
      "last_four" varchar(4) not null,
      "expiration_month" varchar(2) not null,
      "expiration_year" varchar(4) not null,
      "submission_code" varchar(3) not null,
      "outcome" varchar(20) null,
      "updated_card" jsonb null)`);
    this.addSql(`create index "account_update_batch_lines" on "account_update" ("batch_id", "position")`);
    this.addSql('alter table "stored_card" add column "closed_at" timestamptz null');
    this.addSql(`create index "stored_card_merchant_fingerprint" on "stored_card" ("merchant_id", "fingerprint")
      where "removed_at" is null`);
  }
}
