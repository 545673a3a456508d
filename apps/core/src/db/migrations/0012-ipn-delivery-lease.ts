import { Migration } from '@mikro-orm/migrations';

/**
 * IPN deliveries are claimed from their own rows in batches (no job per delivery): a pending row is due
 * when its next_try_at has passed, and a claimed row's next_try_at is its lease. The indexes serve the
 * claim (due rows in order), a destination's probe, and the delivery log's filters. The jobs of the old
 * per-delivery pg-boss queue are dropped: the rows they pointed at are due again here.
 */
export class IpnDeliveryLease extends Migration {
  override up(): void {
    this.addSql(
      `update "ipn_delivery" set "next_try_at" = now() where "state" = 'pending' and "next_try_at" is null`,
    );
    this.addSql('alter table "ipn_delivery" alter column "next_try_at" set default now()');
    this.addSql(
      `create index "ipn_delivery_due_idx" on "ipn_delivery" ("next_try_at") where "state" = 'pending'`,
    );
    this.addSql(
      `create index "ipn_delivery_pending_destination_idx" on "ipn_delivery" ("destination", "next_try_at") where "state" = 'pending'`,
    );
    this.addSql(`do $$ begin
      if to_regclass('pgboss.job') is not null then delete from pgboss.job where name = 'ipn-delivery'; end if;
    end $$`);
    this.addSql(
      'create index "ipn_delivery_merchant_state_idx" on "ipn_delivery" ("merchant_id", "state", "id" desc)',
    );
  }
}
