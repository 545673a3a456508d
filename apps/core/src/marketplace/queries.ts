/**
 * Every hand-written statement of marketplace/, named for its role; parameters as `$n`, never values in the text.
 */

/** A new vendor's id, so its sealed secrets can be bound to it before the row exists. */
export const nextVendorId = `select nextval(pg_get_serial_sequence('vendor', 'id'))::integer as id`;

/**
 * A transaction's split, one row per vendor: $1 transaction, $2 merchant, $3 listed (sent as vendorsInfo),
 * then arrays in the request's order: $4 vendor ids, $5 commission hundredths, $6 commission amounts, $7 shares.
 */
export const insertSplits = `insert into vendor_split (transaction_id, merchant_id, listed, position, vendor_id,
    commission_hundredths, commission_amount_minor, share_minor)
  select $1::bigint, $2::integer, $3::boolean, s.position, s.vendor_id, s.hundredths, s.amount, s.share
  from unnest($4::integer[], $5::integer[], $6::bigint[], $7::bigint[]) with ordinality
    as s(vendor_id, hundredths, amount, share, position)`;

/** $1 merchant, $2 transaction ids: their splits, in the request's order. */
export const splitsOf = `select transaction_id::text as transaction_id, vendor_id, listed, commission_hundredths,
    commission_amount_minor::float8 as commission_amount_minor, share_minor::float8 as share_minor,
    refunded_minor::float8 as refunded_minor
  from vendor_split where merchant_id = $1 and transaction_id = any($2::bigint[]) order by transaction_id, position`;

/** $1 merchant, $2 transaction: its splits, locked for a refund to take from them. */
export const splitsForRefund = `select vendor_id, share_minor::float8 as share_minor, refunded_minor::float8 as refunded_minor
  from vendor_split where merchant_id = $1 and transaction_id = $2 order by position for update`;

/** $1 transaction, $2 vendor, $3 amount: a vendor's refunded part grows (the check keeps it within its share). */
export const addVendorRefunded = `update vendor_split set refunded_minor = refunded_minor + $3
  where transaction_id = $1 and vendor_id = $2`;

/** $1 refund, $2 vendor ids, $3 amounts: the vendors' parts of one refund. */
export const insertVendorRefunds = `insert into vendor_refund (refund_id, vendor_id, amount_minor)
  select $1::bigint, v, a from unnest($2::integer[], $3::bigint[]) as r(v, a)`;
