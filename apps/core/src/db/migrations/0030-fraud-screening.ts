import { Migration } from '@mikro-orm/migrations';

/**
 * Fraud screening (fraud/): a merchant's rules, one row per merchant; the sales that passed screening, kept
 * an hour (the velocity rules count them by card fingerprint and shopper IP address); and a screened sale's
 * fraudResultInfo on its transaction.
 */
export class FraudScreening extends Migration {
  override up(): void {
    this.addSql(`create table "fraud_settings" (
      "merchant_id" integer primary key references "merchant" ("id"),
      "rules" jsonb not null,
      "updated_at" timestamptz not null default now())`);
    this.addSql(`create table "fraud_screening" (
      "id" bigint generated always as identity primary key,
      "merchant_id" integer not null references "merchant" ("id"),
      "card_fingerprint" varchar(255) null,
      "ip_address" varchar(64) null,
      "screened_at" timestamptz not null)`);
    this.addSql(`create index "fraud_screening_card" on "fraud_screening" ("merchant_id", "card_fingerprint", "screened_at")
      where "card_fingerprint" is not null`);
    this.addSql(`create index "fraud_screening_ip" on "fraud_screening" ("merchant_id", "ip_address", "screened_at")
      where "ip_address" is not null`);
    this.addSql(`create index "fraud_screening_age" on "fraud_screening" ("merchant_id", "screened_at")`);
    this.addSql('alter table "card_transaction" add column "fraud_result_info" jsonb null');
  }
}
