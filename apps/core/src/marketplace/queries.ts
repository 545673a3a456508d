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

/**
 * Refunds of whole balances ($1, a JSON array of refund_id and transaction_id): each vendor of the payment gives
 * back what is left of its share, as that refund's part.
 */
export const giveBackShares = `with left_over as (
    select r.refund_id, s.transaction_id, s.vendor_id, s.share_minor - s.refunded_minor as amount_minor
      from jsonb_to_recordset($1::jsonb) as r(refund_id bigint, transaction_id bigint)
      join vendor_split s on s.transaction_id = r.transaction_id
     where s.refunded_minor < s.share_minor),
  given as (
    update vendor_split s set refunded_minor = s.share_minor
      from left_over l where s.transaction_id = l.transaction_id and s.vendor_id = l.vendor_id)
  insert into vendor_refund (refund_id, vendor_id, amount_minor)
  select refund_id, vendor_id, amount_minor from left_over`;

/**
 * Refunds undone ($1, a JSON array of refund_id and transaction_id): their vendors' parts go, and each
 * vendor's refunded part of the payment shrinks by them.
 */
export const removeVendorRefunds = `with undone as (
    delete from vendor_refund vr using jsonb_to_recordset($1::jsonb) as r(refund_id bigint, transaction_id bigint)
     where vr.refund_id = r.refund_id
    returning r.transaction_id, vr.vendor_id, vr.amount_minor),
  per_vendor as (
    select transaction_id, vendor_id, sum(amount_minor) as amount_minor from undone group by transaction_id, vendor_id)
  update vendor_split s set refunded_minor = s.refunded_minor - p.amount_minor
    from per_vendor p where s.transaction_id = p.transaction_id and s.vendor_id = p.vendor_id`;

/** $1 refund, $2 vendor ids, $3 amounts: the vendors' parts of one refund. */
export const insertVendorRefunds = `insert into vendor_refund (refund_id, vendor_id, amount_minor)
  select $1::bigint, v, a from unnest($2::integer[], $3::bigint[]) as r(v, a)`;

/**
 * Approved vendors whose next payout day has come by their merchant's clock (core's time $1 plus the
 * merchant's offset, none when $2: live), locked (skipping those another run holds), at most $3.
 */
export const lockDueVendors = `select v.id, v.merchant_id, v.frequency, v.delay, v.payout, m.merchant_now
  from (select id, $1::timestamptz + make_interval(secs => case when $2::boolean then 0 else clock_offset_seconds end)
          as merchant_now from merchant) m
  join vendor v on v.merchant_id = m.id
 where v.payout_status = 'Approved'
   and (v.next_payout_on is null or v.next_payout_on <= (m.merchant_now at time zone 'UTC')::date)
 limit $3
 for update of v skip locked`;

/**
 * Each vendor's balance per currency as of its period's end ($1, a JSON array of vendor_id and period_end):
 * its shares of the payments that paid in before the end (captured card sales by their authorization, debits
 * the bank collected by their collection: a failed one never, a returned one refunded whole), less its parts
 * of refunds (card or debit) made before it, less its part of chargebacks opened before it and not won (its
 * share of the disputed amount, rounded down, never more than the share left after refunds), less every
 * payout already claimed, whatever became of it.
 */
export const vendorBalances = `with v as (
    select * from jsonb_to_recordset($1::jsonb) as v(vendor_id integer, period_end timestamptz)),
  paid_in as (
    select id, currency, authorized_at as paid_at from card_transaction where status = 'CAPTURED'
    union all
    select id, currency, settled_at from sepa_debit where status in ('SUCCESS', 'REFUNDED')),
  refunded as (
    select r.id, r.created_at, t.currency from refund r join card_transaction t on t.id = r.transaction_id
    union all
    select r.id, r.created_at, d.currency from sepa_refund r join sepa_debit d on d.id = r.debit_id),
  movement as (
    select s.vendor_id, t.currency, s.share_minor as amount_minor
      from v join vendor_split s on s.vendor_id = v.vendor_id
      join paid_in t on t.id = s.transaction_id
     where t.paid_at < v.period_end
    union all
    select vr.vendor_id, r.currency, -vr.amount_minor
      from v join vendor_refund vr on vr.vendor_id = v.vendor_id
      join refunded r on r.id = vr.refund_id
     where r.created_at < v.period_end
    union all
    select s.vendor_id, t.currency,
           -least(s.share_minor - s.refunded_minor, sum(cb.amount_minor * s.share_minor / t.amount_minor))
      from v join vendor_split s on s.vendor_id = v.vendor_id
      join card_transaction t on t.id = s.transaction_id
      join chargeback cb on cb.transaction_id = t.id
     where t.status = 'CAPTURED' and cb.status <> 'COMPLETED_WON' and cb.created_at < v.period_end
     group by s.vendor_id, s.transaction_id, t.currency, s.share_minor, s.refunded_minor
    union all
    select p.vendor_id, p.currency, -p.amount_minor
      from v join vendor_payout p on p.vendor_id = v.vendor_id)
  select vendor_id, currency, sum(amount_minor)::float8 as balance_minor from movement group by vendor_id, currency`;

/** New payouts ($1, a JSON array), due at once; a vendor's period and currency claimed already stays as it is. */
export const insertPayouts = `insert into vendor_payout (merchant_id, vendor_id, period_end, currency, amount_minor,
    payout_type, status, next_try_at, created_at)
  select merchant_id, vendor_id, period_end, currency, amount_minor, payout_type, 'PENDING', merchant_now, merchant_now
    from jsonb_to_recordset($1::jsonb) as v(merchant_id integer, vendor_id integer, period_end date, currency text,
      amount_minor bigint, payout_type text, merchant_now timestamptz)
  on conflict on constraint vendor_payout_once do nothing`;

/** The vendors' next payout days ($1, a JSON array of vendor_id and next_payout_on). */
export const setNextPayoutDays = `update vendor set next_payout_on = v.next_payout_on
  from jsonb_to_recordset($1::jsonb) as v(vendor_id integer, next_payout_on date) where vendor.id = v.vendor_id`;

/**
 * Claims up to $3 unpaid payouts due by their merchant's clock ($1, $2 as in lockDueVendors) by leasing them
 * for $4 seconds; one leased to another run is not due. With what the transfer and the file need: the
 * vendor's sealed secrets (opened only to write the file) and payout method. The lease comes back as text,
 * to the microsecond: it is the claim's token (lockSentPayouts).
 */
export const claimDuePayouts = `with due as (
    select p.id, m.merchant_now
      from (select id, $1::timestamptz + make_interval(secs => case when $2::boolean then 0 else clock_offset_seconds end)
              as merchant_now from merchant) m
      join vendor_payout p on p.merchant_id = m.id
     where p.status <> 'PAID' and p.next_try_at <= m.merchant_now
       and (p.sending_until is null or p.sending_until < now())
     limit $3
     for update of p skip locked),
  claimed as (
    update vendor_payout p set sending_until = now() + make_interval(secs => $4), attempts = p.attempts + 1
      from due where p.id = due.id
    returning p.id, p.merchant_id, p.vendor_id, p.currency, p.amount_minor::float8 as amount_minor, p.payout_type,
              p.sending_until::text as sending_until, due.merchant_now)
  select c.*, v.sealed_secrets, v.payout, v.contact, v.email, v.next_payout_on::text as next_payout_on
    from claimed c join vendor v on v.id = c.vendor_id`;

/** Locks the claimed payouts ($1, a JSON array of id and lease) still held by their claim, as they are now. */
export const lockSentPayouts = `select p.id, p.status from jsonb_to_recordset($1::jsonb) as v(id bigint, sending_until text)
  join vendor_payout p on p.id = v.id and p.sending_until = v.sending_until::timestamptz
  for update of p`;

/**
 * The bank's answers ($1, a JSON array): paid, or waiting in RETRY until the vendor's next payout day; the
 * lease ends either way.
 */
export const recordTransfers = `update vendor_payout p
   set status = case when v.paid then 'PAID' else 'RETRY' end,
       paid_at = case when v.paid then v.merchant_now else null end,
       failure = case when v.paid then null else v.failure end,
       next_try_at = case when v.paid then p.next_try_at else v.retry_at end,
       sending_until = null
  from jsonb_to_recordset($1::jsonb)
    as v(id bigint, paid boolean, failure text, merchant_now timestamptz, retry_at timestamptz)
 where p.id = v.id`;
