import { Migration } from '@mikro-orm/migrations';

/**
 * The renewal scheduler's state on a subscription (README, Renewals, dunning and reminders):
 * - renewal_lease_until: a worker took the subscription's due work until then (real time); another core's
 *   worker leaves it alone meanwhile, and takes it over once the lease has run out (the first one died);
 * - retry_at: when the declined period is next retried (dunning, by the merchant's clock); failed_since:
 *   when that period's first attempt was declined (the grace period runs from it); both null when none is;
 * - reminded_charge_date: the charge date whose SubscriptionReminder was last sent (SEPA subscriptions).
 * The due scan reads active subscriptions by merchant and due date.
 */
export class Renewals extends Migration {
  override up(): void {
    this.addSql(`alter table "subscription"
      add column "renewal_lease_until" timestamptz null,
      add column "retry_at" timestamptz null,
      add column "failed_since" timestamptz null,
      add column "reminded_charge_date" date null`);
    this.addSql(`create index "subscription_renewal_idx" on "subscription" ("merchant_id", "next_charge_date")
      where "status" = 'ACTIVE' and "next_charge_date" is not null`);
  }
}
