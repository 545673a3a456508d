import { Migration } from '@mikro-orm/migrations';

/**
 * A technical cancel is trusted only once Adyen confirms it (processors/adyen/confirmations.ts): the
 * pipeline looks up the TECHNICAL_CANCEL items of one account and attempt reference while it waits, so
 * they are indexed by what it asks (a partial index: no other event is looked up this way).
 */
export class TechnicalCancelLookup extends Migration {
  override up(): void {
    this.addSql(`create index "processor_notification_technical_cancel_idx"
      on "processor_notification" ("account_id", "merchant_reference") where "event_code" = 'TECHNICAL_CANCEL'`);
  }
}
