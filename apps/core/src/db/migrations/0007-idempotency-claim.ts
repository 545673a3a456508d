import { Migration } from '@mikro-orm/migrations';

/**
 * Claiming an idempotency key in one round trip: the transaction-scoped advisory lock, then the key's
 * record. The function is volatile, so the record is read with a snapshot taken after the lock is held and
 * sees an answer the lock's previous holder committed; a plain select beside the lock would not.
 */
export class IdempotencyClaim extends Migration {
  override up(): void {
    this.addSql(`create function "idempotency_claim"(p_merchant integer, p_key varchar)
      returns table ("locked" boolean, "fingerprint" varchar, "outcome" text, "expires_at" timestamptz)
      language plpgsql volatile as $$
      begin
        -- one 64-bit lock per merchant and key: two keys practically never share one
        if not pg_try_advisory_xact_lock(hashtextextended(p_merchant || ':' || p_key, 0)) then
          return query select false, null::varchar, null::text, null::timestamptz;
          return;
        end if;
        return query select true, r.fingerprint, r.outcome, r.expires_at
          from (select 1) as one
          left join idempotency_record r on r.merchant_id = p_merchant and r.key = p_key;
      end $$`);
  }
}
