/**
 * Every hand-written statement of idempotency, named for its role; parameters as `$n`, never values in the
 * text.
 */
import { factsColumns, factsSource } from '../merchants/queries.ts';

/** The key's ($2, of merchant $1) lock, its record, and the merchant's facts the call will need: one row. */
export const claimKey = `select cl.locked, cl.fingerprint, cl.outcome, cl.expires_at, ${factsColumns}
     from idempotency_claim($1, $2) cl, ${factsSource} where m.id = $1`;

/** A record past retention (its row still there) takes the new one. */
const renewal = `
  on conflict (merchant_id, key) do update set fingerprint = excluded.fingerprint, procedure = excluded.procedure,
    outcome = excluded.outcome, created_at = excluded.created_at, expires_at = excluded.expires_at`;

const insertRecord = `insert into idempotency_record (merchant_id, key, fingerprint, procedure, outcome, created_at, expires_at)
       values ($1, $2, $3, $4, $5, now(), $6)`;

/** The answer ($5) of a key seen for the first time: merchant, key, fingerprint, procedure, outcome, expiry. */
export const recordOutcome = insertRecord;

/** The same, over a record past retention. */
export const renewWithOutcome = `${insertRecord}${renewal}`;

/** A phased call's claim: a record with no answer (a retry sees it in flight); $5 is null. */
export const recordInFlight = renewWithOutcome;

/** A phased call's answer ($3) on its in-flight record. */
export const recordAnswer = `update idempotency_record set outcome = $3 where merchant_id = $1 and key = $2 and outcome is null`;

/** Frees a key in flight unless a payment attempt under it is unresolved (the recovery worker frees it). */
export const freeKeyWithoutAttempt = `delete from idempotency_record r where merchant_id = $1 and key = $2 and outcome is null
         and not exists (select 1 from payment_attempt a where a.merchant_id = r.merchant_id
           and a.idempotency_key = r.key and a.state in ('PENDING', 'VOIDING'))`;

/** The procedure of a keyed call runs after a savepoint: its failure is undone, the record of the answer kept. */
export const beginCall = 'savepoint idempotent_call';
export const undoCall = 'rollback to savepoint idempotent_call';

/**
 * Removes records past their expiry by their merchant's clock: core's time $1 plus the merchant's offset
 * (none when $2, live); counts them.
 */
export const deleteExpiredRecords = `with gone as (
       delete from idempotency_record r using merchant m
       where r.merchant_id = m.id
         and r.expires_at <= $1::timestamptz + make_interval(secs => case when $2::boolean then 0 else m.clock_offset_seconds end)
       returning 1)
     select count(*) as count from gone`;
