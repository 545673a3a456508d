import { Migration } from '@mikro-orm/migrations';

/**
 * IPN deliveries are claimed from their own rows in batches (no job per delivery): a pending row is due
 * when its next_try_at has passed; a claimed row is 'sending' and its next_try_at is the end of its lease,
 * after which it is due again (its core died). One partial index serves
 * the claims (due rows in order); every index more would be written twice per delivery, so the log's
 * filters use the merchant's index (merchant_id, id desc) and filter its rows. The jobs of the old
 * per-delivery pg-boss queue are dropped: the rows they pointed at are due again here.
 */
export class IpnDeliveryLease extends Migration {
  override up(): void {
    this.addSql(
      `update "ipn_delivery" set "next_try_at" = now() where "state" = 'pending' and "next_try_at" is null`,
    );
    this.addSql('alter table "ipn_delivery" alter column "next_try_at" set default now()');
    this.addSql(
      `create index "ipn_delivery_due_idx" on "ipn_delivery" ("next_try_at") where "state" in ('pending', 'sending')`,
    );
    this.addSql(`do $$ begin
      if to_regclass('pgboss.job') is not null then delete from pgboss.job where name = 'ipn-delivery'; end if;
    end $$`);
  }
}
