/**
 * Every hand-written statement of cards, named for its role; parameters as `$n`, never values in the text.
 * The ORM reads and writes the aggregates; these are what it cannot say in one round trip.
 */

/** Whether a merchant's card transaction has this id ($2) or merchantTransactionId ($3); the other is null. */
export const cardTransactionExists = `select 1 from card_transaction
  where merchant_id = $1 and (id = $2 or merchant_transaction_id = $3)`;
