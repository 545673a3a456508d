import { Migration } from '@mikro-orm/migrations';

/**
 * The id of the request (X-Request-Id) that caused an IPN delivery, so an operator can follow a merchant's
 * question from the delivery log to the facade's and core's log lines. Null for deliveries from workers
 * (settlement runs) and for rows from before. No index: it is shown, never searched by the database.
 */
export class DeliveryRequestId extends Migration {
  override up(): void {
    this.addSql('alter table "ipn_delivery" add column "request_id" varchar(128) null');
  }
}
