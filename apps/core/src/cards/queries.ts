/**
 * Every hand-written statement of cards, named for its role; parameters as `$n`, never values in the text.
 * The ORM reads and writes the aggregates; these are what it cannot say in one round trip.
 */
import { claimMerchantTransactionId, settleAttemptWithSale } from '../payments/queries.ts';
import { upsertVaultedCard } from '../shoppers/queries.ts';

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
 * Writes a sale with its new shopper and newly vaulted card, and settles the attempt it was authorized under,
 * in one statement: atomic on its own, and sent with its transaction's commit, so the record phase is one
 * round trip. $1 merchant, $2 merchantTransactionId (claimed with the sale), $3-$19 the sale's columns in the
 * order `insertSale` (sale-writer.ts) lists them, $20 the attempt's reference, $21 the sale's id and $22 its
 * shopper's (both reserved with the attempt, so that what commits with the sale can name them unanswered),
 * then a new shopper's columns, then the card's (`vaultCardParameters`). When the attempt is no longer
 * pending (recovery took it over), payment_attempt_settled fails the statement (SQLSTATE PW001) and so the
 * commit. The text depends on the shape alone, so each shape is prepared once per connection.
 */
export function saleStatement(shape: SaleShape): string {
  let next = 23;
  const bind = () => `$${next++}`;
  const shopper =
    shape.shopper === 'known'
      ? 'select $22::integer as id'
      : `insert into shopper (id, merchant_id, ${shape.shopper.columns.join(', ')}, created_at, updated_at)
         values ($22::integer, $1::integer, ${shape.shopper.columns.map(() => `${bind()}::varchar`).join(', ')}, now(), now())
         returning id`;
  const card =
    shape.card === 'none'
      ? 'select null::bigint as id'
      : shape.card === 'known'
        ? `select ${bind()}::bigint as id`
        : upsertVaultedCard(next);
  // Typed: in insert ... select, PostgreSQL does not infer parameter types from the target columns.
  return `with s as (${shopper}), c as (${card}),
    t as (insert into card_transaction (id, merchant_id, merchant_transaction_id, shopper_id, card_id, wallet, type,
        status, currency, amount_minor, captured_minor, soft_descriptor, card_holder, processing, three_d_secure,
        transaction_meta_data, level3_data, transaction_fraud_info, authorized_at, processor_account_id, processor_reference,
        fraud_result_info, created_at, updated_at)
      select $21::bigint, $1::integer, $2::varchar, s.id, c.id, $3::jsonb, $4::varchar, $5::varchar, $6::varchar,
        $7::bigint, $8::bigint, $9::varchar, $10::jsonb, $11::jsonb, $12::jsonb, $13::jsonb, $14::jsonb, $15::jsonb,
        $16::timestamptz, $17::integer, $18::varchar, $19::jsonb, now(), now()
      from s, c returning id),
    r as (${claimMerchantTransactionId}),
    a as (${settleAttemptWithSale})
    select payment_attempt_settled((select count(*) from a), $20::text) as settled from t`;
}
