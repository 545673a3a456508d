import { Migration } from '@mikro-orm/migrations';

/**
 * Payments through processor accounts (processors/, payments/): an attempt names the account it went to
 * (null: the built-in sandbox account) and its currency, so recovery asks the right processor; a card
 * transaction keeps the account and the processor's reference of its authorization, where its captures,
 * cancels and refunds go. `called_at`: when the attempt's current call began (a failover's next account
 * dates it afresh), what recovery's delay counts from; `processor_reference`: a modification's own
 * reference at the processor (Adyen's pspReference of the capture, refund...), which its notification names. AWAITING: the processor accepted a modification and confirms it later (a
 * notification); FAILED: the processor's confirmation said it failed.
 */
export class ProcessorAttempts extends Migration {
  override up(): void {
    this.addSql(`alter table "payment_attempt"
      add column "processor_account_id" integer references "processor_account" ("id"),
      add column "currency" varchar(3),
      add column "called_at" timestamptz not null default now(),
      add column "processor_reference" varchar(64)`);
    this.addSql('update "payment_attempt" set "called_at" = "created_at"');
    this.addSql('drop index "payment_attempt_unresolved_idx"');
    this.addSql(`create index "payment_attempt_unresolved_idx" on "payment_attempt" ("called_at")
      where "state" in ('PENDING', 'VOIDING')`);
    this.addSql('alter table "payment_attempt" drop constraint "payment_attempt_state_check"');
    this.addSql(`alter table "payment_attempt" add constraint "payment_attempt_state_check"
      check ("state" in ('PENDING', 'AWAITING', 'DONE', 'DECLINED', 'FAILED', 'VOIDING', 'VOIDED'))`);
    this.addSql(`alter table "card_transaction"
      add column "processor_account_id" integer references "processor_account" ("id"),
      add column "processor_reference" varchar(64)`);
    this.addSql(`create index "payment_attempt_awaiting_idx" on "payment_attempt" ("transaction_id")
      where "state" = 'AWAITING'`);
  }
}
