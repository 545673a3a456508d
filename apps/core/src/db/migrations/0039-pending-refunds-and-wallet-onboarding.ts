import { Migration } from '@mikro-orm/migrations';

/**
 * Pending refunds and Apple Pay onboarding (issue 27).
 *
 * Pending refunds (docs/conformance.md, Pending refunds): a refund row carries its state. PENDING from the
 * moment it is asked of the processor until the processor says it is done (at once, or later by
 * notification); CANCELLED when the merchant withdrew it before then. Refunds a processor had only received
 * when this runs are PENDING. A cancellation is a payment attempt of its own kind, RECALL.
 *
 * Apple Pay onboarding (docs/wallets.md): one row per merchant, its id the onboarding id the reference
 * answers, with the domains that show the Apple Pay button.
 */
export class PendingRefundsAndWalletOnboarding extends Migration {
  override up(): void {
    this.addSql(`alter table "refund" add column "status" varchar(10) not null default 'COMPLETED'
      check ("status" in ('PENDING', 'COMPLETED', 'CANCELLED'))`);
    this.addSql(`update "refund" r set "status" = 'PENDING' from "payment_attempt" a
      where a."reference" = r."attempt_reference" and a."state" in ('PENDING', 'AWAITING', 'VOIDING')`);
    this.addSql(`create index "refund_pending_idx" on "refund" ("merchant_id", "created_at", "id")
      where "status" = 'PENDING'`);
    this.addSql('alter table "payment_attempt" drop constraint "payment_attempt_kind_check"');
    this.addSql(`alter table "payment_attempt" add constraint "payment_attempt_kind_check"
      check ("kind" in ('AUTHORIZE', 'CAPTURE', 'REVERSE', 'REFUND', 'RECALL'))`);
    this.addSql(`create table "wallet_onboarding" (
      "id" bigserial primary key,
      "merchant_id" integer not null unique references "merchant" ("id"),
      "wallet_type" varchar(20) not null default 'APPLE_PAY' check ("wallet_type" = 'APPLE_PAY'),
      "domains" text[] not null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now())`);
  }
}
