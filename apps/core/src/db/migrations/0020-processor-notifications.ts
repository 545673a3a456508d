import { Migration } from '@mikro-orm/migrations';

/**
 * Processor notifications (processors/adyen/notifications.ts) and the chargebacks they report.
 * - `processor_notification` is an inbox: every authentic item is stored raw before Adyen is answered, once
 *   per (account, pspReference, eventCode, success) however often Adyen repeats it, and processed after;
 *   `processed_at` null is work left for the janitor.
 * - A refund row names the attempt that asked the processor for it, so a refund the processor later
 *   reports failed is undone exactly.
 * - `chargeback`: one per dispute (Adyen's pspReference) per account. No foreign key to
 *   processor_account: the accounts table is another capability's, and the inbox must keep what Adyen
 *   sent whatever becomes of the account row.
 */
export class ProcessorNotifications extends Migration {
  override up(): void {
    this.addSql(`create table "processor_notification" (
      "id" bigserial primary key,
      "account_id" integer not null,
      "merchant_id" integer not null references "merchant" ("id"),
      "psp_reference" varchar(64) not null,
      "original_reference" varchar(64),
      "merchant_reference" varchar(256) not null,
      "event_code" varchar(64) not null,
      "success" boolean not null,
      "body" jsonb not null,
      "received_at" timestamptz not null default now(),
      "processed_at" timestamptz,
      constraint "processor_notification_once" unique ("account_id", "psp_reference", "event_code", "success"))`);
    // the janitor's scan: only unprocessed items are indexed
    this.addSql(`create index "processor_notification_unprocessed_idx" on "processor_notification" ("received_at")
      where "processed_at" is null`);
    this.addSql('alter table "refund" add column "attempt_reference" uuid');
    this.addSql(`create table "chargeback" (
      "id" bigserial primary key,
      "merchant_id" integer not null references "merchant" ("id"),
      "transaction_id" bigint not null references "card_transaction" ("id"),
      "processor_account_id" integer not null,
      "psp_reference" varchar(64) not null,
      "amount_minor" bigint not null,
      "currency" varchar(3) not null,
      "reason_code" varchar(64),
      "reason" varchar(4000),
      "status" varchar(10) not null default 'NEW' check ("status" in ('NEW', 'WON', 'LOST', 'REVERSED')),
      "created_at" timestamptz not null default now(),
      constraint "chargeback_once" unique ("processor_account_id", "psp_reference"))`);
    this.addSql('create index "chargeback_transaction_idx" on "chargeback" ("transaction_id")');
  }
}
