import { Migration } from '@mikro-orm/migrations';

/**
 * The payment path in phases (README, The payment path): every call to the acquirer is first a committed
 * attempt row carrying the reference the acquirer knows it by, then the call with no transaction held, then
 * the outcome. An idempotency record whose outcome is null is a keyed call in flight (409 to a retry).
 */
export class PaymentAttempts extends Migration {
  override up(): void {
    this.addSql(`create table "payment_attempt" (
      "id" bigserial primary key,
      "reference" uuid not null unique,
      "merchant_id" integer not null references "merchant" ("id"),
      "kind" varchar(10) not null check ("kind" in ('AUTHORIZE', 'CAPTURE', 'REVERSE', 'REFUND')),
      "state" varchar(10) not null check ("state" in ('PENDING', 'DONE', 'DECLINED', 'VOIDING', 'VOIDED')),
      "idempotency_key" varchar(64),
      "transaction_id" bigint references "card_transaction" ("id"),
      "amount_minor" bigint not null,
      "created_at" timestamptz not null default now(),
      "resolved_at" timestamptz)`);
    // the recovery worker's scan: only unresolved attempts are indexed
    this.addSql(`create index "payment_attempt_unresolved_idx" on "payment_attempt" ("created_at")
      where "state" in ('PENDING', 'VOIDING')`);
    this.addSql(`create index "payment_attempt_key_idx" on "payment_attempt" ("merchant_id", "idempotency_key")
      where "idempotency_key" is not null`);
    this.addSql('alter table "idempotency_record" alter column "outcome" drop not null');
  }
}
