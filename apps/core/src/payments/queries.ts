/**
 * The statements every kind of payment shares, named for their role; parameters as `$n`, never values in the
 * text.
 */

/**
 * A merchantTransactionId is the merchant's one id for one payment, card or SEPA (0008): claimed with the
 * payment, it fails on the unique index when another payment has it. $1 merchant, $2 the id (null: nothing
 * to claim). A card sale runs it inside its own statement, with the same two parameters first.
 */
export const claimMerchantTransactionId = `insert into merchant_transaction_ids (merchant_id, merchant_transaction_id)
  select $1::integer, $2::varchar where $2::varchar is not null`;

/** Whether merchant $1 has a payment with merchantTransactionId $2 already. */
export const merchantTransactionIdTaken = `select 1 from merchant_transaction_ids
  where merchant_id = $1 and merchant_transaction_id = $2`;

/**
 * Attempts still PENDING or VOIDING $1 seconds after their last call began (a failover dates each account's), oldest first, $2 at most, with the account they went
 * to and the authorization they change (its processor reference and currency).
 */
export const unresolvedAttempts = `select a.reference, a.merchant_id, a.kind, a.amount_minor, a.idempotency_key,
       a.processor_account_id, a.currency, a.transaction_id,
       coalesce(t.processor_reference, t.processing->>'networkTransactionId') as processor_reference
     from payment_attempt a left join card_transaction t on t.id = a.transaction_id
     where a.state in ('PENDING', 'VOIDING') and a.called_at < now() - make_interval(secs => $1)
     order by a.called_at limit $2`;

/**
 * Marks a pending attempt ($1) done ($2 DONE) or accepted for confirmation later ($2 AWAITING, $3 the
 * processor's reference of it); a refund it stood for is completed with it when done.
 */
export const completeAttempt = `with attempt as (
       update payment_attempt set state = $2, processor_reference = $3, resolved_at = now()
        where reference = $1 and state = 'PENDING' returning reference)
     update refund set status = 'COMPLETED'
      where attempt_reference = (select reference from attempt) and $2::text = 'DONE' and status = 'PENDING'`;

/**
 * The refund an attempt ($1) stood for is done: the processor no longer holds it pending. Returns whether it
 * asked to cancel the refunded charge's subscription (null: the reference's default, yes).
 */
export const completeRefundOfAttempt = `update refund set status = 'COMPLETED'
     where attempt_reference = $1 and status = 'PENDING' returning cancel_subscriptions`;

/** Frees keys in flight for more than $1 seconds whose call left no unresolved attempt (core died before one). */
export const freeStaleKeys = `delete from idempotency_record r where r.outcome is null and r.created_at < now() - make_interval(secs => $1)
       and not exists (select 1 from payment_attempt a where a.merchant_id = r.merchant_id
         and a.idempotency_key = r.key and a.state in ('PENDING', 'VOIDING'))`;

const attemptInsertInto = `insert into payment_attempt (reference, merchant_id, kind, state, idempotency_key, transaction_id,
       amount_minor, currency, processor_account_id)`;

/** A pending attempt: its reference, merchant, kind, idempotency key, transaction, amount, currency, account. */
export const insertAttempt = `${attemptInsertInto}
     values ($1, $2, $3, 'PENDING', $4, $5, $6, $7, $8)`;

/**
 * As insertAttempt, for a sale: with the ids its sale will be written under (and its new shopper's, when $9),
 * so that what commits with the sale can name them before the sale's statement is answered. The identity
 * sequences by name: resolved once when the statement is prepared, not looked up on every sale. Given the
 * version ($10) of the merchant's facts the sale was routed with, it writes nothing once they have moved on
 * (0046).
 */
export const insertSaleAttempt = `${attemptInsertInto}
     select $1::uuid, $2::int, $3, 'PENDING', $4, $5::bigint, $6::bigint, $7, $8::int
     where $10::uuid is null or exists (select 1 from merchant where id = $2 and facts_version = $10)
     returning nextval('card_transaction_id_seq') as transaction_id,
       case when $9::boolean then nextval('shopper_id_seq') end as shopper_id`;

/** A pending authorization ($1) moves to the next account ($2) of its failover, committed before it is asked; no row once it is not pending. */
export const moveAttempt = `update payment_attempt set processor_account_id = $2, called_at = now()
     where reference = $1 and state = 'PENDING' returning id`;

/**
 * Settles a pending attempt ($1) as $2, with the transaction ($3) it made, the processor's reference of
 * a modification ($4, what its confirmation names) and a decline's reason ($5); no row when it is no longer
 * pending.
 */
export const settlePendingAttempt = `update payment_attempt set state = $2, transaction_id = coalesce($3, transaction_id),
       processor_reference = $4, decline_reason = $5, resolved_at = now()
     where reference = $1 and state = 'PENDING' returning id`;

/**
 * As settlePendingAttempt to DONE, for the sale a statement writes in its CTE `t` (cards/queries.ts): the
 * attempt whose reference is $20 settled with the sale, in the sale's own statement.
 */
export const settleAttemptWithSale = `update payment_attempt a set state = 'DONE', transaction_id = t.id,
       processor_reference = null, decline_reason = null, resolved_at = now()
     from t where a.reference = $20 and a.state = 'PENDING' returning a.id`;

/** Takes a pending (or already voiding) attempt to VOIDING; no row when it was settled. */
export const takeForVoiding = `update payment_attempt set state = 'VOIDING' where reference = $1 and state in ('PENDING', 'VOIDING')
     returning id`;

/** Marks a voiding attempt VOIDED, with the key its call ran under. */
export const markVoided = `update payment_attempt set state = 'VOIDED', resolved_at = now()
       where reference = $1 and state = 'VOIDING' returning merchant_id, idempotency_key`;

/** Frees a key whose call is in flight (no outcome recorded). */
export const freeKeyInFlight =
  'delete from idempotency_record where merchant_id = $1 and key = $2 and outcome is null';

/** Answers a key in flight ($1 merchant, $2 key) with $3, a stored outcome: the call recovery completed. */
export const answerKeyInFlight =
  'update idempotency_record set outcome = $3 where merchant_id = $1 and key = $2 and outcome is null';

/**
 * Refund attempts ($1, references) the processor received and has not done, withdrawn (VOIDED): a late
 * confirmation finds nothing to settle. Returns those it took; one still being asked is not taken.
 */
export const withdrawAwaitingRefunds = `update payment_attempt set state = 'VOIDED', resolved_at = now()
     where reference = any($1::uuid[]) and kind = 'REFUND' and state = 'AWAITING' returning reference`;
