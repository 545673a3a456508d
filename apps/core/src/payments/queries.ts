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
