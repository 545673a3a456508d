import { Migration } from '@mikro-orm/migrations';

/**
 * An inquiry about an Adyen attempt whose answer was lost reads the attempt's AUTHORISATION item
 * (processors/adyen/confirmations.ts): indexed by what it asks, as 0024 indexes technical cancels.
 */
export class AuthorisationLookup extends Migration {
  override up(): void {
    this.addSql(`create index "processor_notification_authorisation_idx"
      on "processor_notification" ("account_id", "merchant_reference") where "event_code" = 'AUTHORISATION'`);
  }
}
