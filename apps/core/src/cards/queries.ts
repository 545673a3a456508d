/**
 * Every hand-written statement of cards, named for its role; parameters as `$n`, never values in the text.
 * The ORM reads and writes the aggregates; these are what it cannot say in one round trip.
 */
import { claimMerchantTransactionId } from '../payments/queries.ts';
import { vaultCard } from '../shoppers/queries.ts';

/** Whether a merchant's card transaction has this id ($2) or merchantTransactionId ($3); the other is null. */
export const cardTransactionExists = `select 1 from card_transaction
  where merchant_id = $1 and (id = $2 or merchant_transaction_id = $3)`;

/**
 * A sale's shape: its shopper known (by id) or new (these columns, each a `$n`), its card known (by id),
 * new (vaulted with the sale) or none (a wallet payment: its card is on the sale).
 */
export interface SaleShape {
  shopper: 'known' | { columns: readonly string[] };
  card: 'known' | 'new' | 'none';
}

/**
 * Writes a sale with its new shopper and newly vaulted card in one statement: one round trip instead of one
 * per row, atomic on its own. $1 merchant, $2 merchantTransactionId (claimed with the sale), $3-$16 the
 * sale's columns in the order `insertSale` (sale-writer.ts) lists them, then the shopper's, then the card's
 * (`vaultCardParameters`). The text depends on the shape alone, so each shape is prepared once per connection.
 */
export function saleStatement(shape: SaleShape): string {
  let next = 17;
  const bind = () => `$${next++}`;
  const shopper =
    shape.shopper === 'known'
      ? `select ${bind()}::integer as id`
      : `insert into shopper (merchant_id, ${shape.shopper.columns.join(', ')}, created_at, updated_at)
         values ($1::integer, ${shape.shopper.columns.map(() => `${bind()}::varchar`).join(', ')}, now(), now())
         returning id`;
  const card =
    shape.card === 'none'
      ? 'select null::bigint as id'
      : shape.card === 'known'
        ? `select ${bind()}::bigint as id`
        : vaultCard(next);
  // Typed: in insert ... select, PostgreSQL does not infer parameter types from the target columns.
  return `with s as (${shopper}), c as (${card}),
    t as (insert into card_transaction (merchant_id, merchant_transaction_id, shopper_id, card_id, wallet, type, status,
        currency, amount_minor, captured_minor, soft_descriptor, card_holder, processing, three_d_secure,
        transaction_meta_data, level3_data, transaction_fraud_info, authorized_at, created_at, updated_at)
      select $1::integer, $2::varchar, s.id, c.id, $3::jsonb, $4::varchar, $5::varchar, $6::varchar, $7::bigint,
        $8::bigint, $9::varchar, $10::jsonb, $11::jsonb, $12::jsonb, $13::jsonb, $14::jsonb, $15::jsonb,
        $16::timestamptz, now(), now()
      from s, c returning id),
    r as (${claimMerchantTransactionId})
    select t.id as transaction_id, s.id as shopper_id from t, s`;
}

/** Attempts still PENDING or VOIDING after $1 seconds, oldest first, $2 at most, with the authorization they change. */
export const unresolvedAttempts = `select a.reference, a.merchant_id, a.kind, a.amount_minor, a.idempotency_key,
       t.processing->>'networkTransactionId' as network_transaction_id
     from payment_attempt a left join card_transaction t on t.id = a.transaction_id
     where a.state in ('PENDING', 'VOIDING') and a.created_at < now() - make_interval(secs => $1)
     order by a.created_at limit $2`;

/** Marks a pending attempt ($1) done: its acquirer call was repeated and answered. */
export const completeAttempt = `update payment_attempt set state = 'DONE', resolved_at = now() where reference = $1 and state = 'PENDING'`;

/** Frees keys in flight for more than $1 seconds whose call left no unresolved attempt (core died before one). */
export const freeStaleKeys = `delete from idempotency_record r where r.outcome is null and r.created_at < now() - make_interval(secs => $1)
       and not exists (select 1 from payment_attempt a where a.merchant_id = r.merchant_id
         and a.idempotency_key = r.key and a.state in ('PENDING', 'VOIDING'))`;

/** A pending attempt: its reference, merchant, kind, idempotency key, transaction, amount. */
export const insertAttempt = `insert into payment_attempt (reference, merchant_id, kind, state, idempotency_key, transaction_id, amount_minor)
     values ($1, $2, $3, 'PENDING', $4, $5, $6)`;

/** Settles a pending attempt ($1) as $2, with the transaction ($3) it made; no row when it is no longer pending. */
export const settlePendingAttempt = `update payment_attempt set state = $2, transaction_id = coalesce($3, transaction_id), resolved_at = now()
     where reference = $1 and state = 'PENDING' returning id`;

/** Takes a pending (or already voiding) attempt to VOIDING; no row when it was settled. */
export const takeForVoiding = `update payment_attempt set state = 'VOIDING' where reference = $1 and state in ('PENDING', 'VOIDING')
     returning id`;

/** Marks a voiding attempt VOIDED, with the key its call ran under. */
export const markVoided = `update payment_attempt set state = 'VOIDED', resolved_at = now()
       where reference = $1 and state = 'VOIDING' returning merchant_id, idempotency_key`;

/** Frees a key whose call is in flight (no outcome recorded). */
export const freeKeyInFlight =
  'delete from idempotency_record where merchant_id = $1 and key = $2 and outcome is null';
