/**
 * Every hand-written statement of reports, named for its role; parameters as `$n`, never values in the text.
 */

/**
 * What moved on the day: card transactions captured (by authorization time: a sale authorizes and captures
 * at once), card refunds, SEPA debits the bank settled or refused, SEPA refunds and returns.
 */
export const dayTotals = `
  select 'cardSales' as kind, currency, count(*)::int as count, sum(captured_minor)::text as amount_minor
    from card_transaction
   where merchant_id = $1 and status = 'CAPTURED' and authorized_at >= $2::timestamptz and authorized_at < $3::timestamptz
   group by currency
  union all
  select 'cardRefunds', t.currency, count(*)::int, sum(r.amount_minor)::text
    from refund r join card_transaction t on t.id = r.transaction_id
   where r.merchant_id = $1 and r.created_at >= $2::timestamptz and r.created_at < $3::timestamptz
   group by t.currency
  union all
  select case when status = 'FAIL' then 'sepaFailed' else 'sepaSettled' end, currency, count(*)::int,
         sum(amount_minor)::text
    from sepa_debit
   where merchant_id = $1 and settled_at >= $2::timestamptz and settled_at < $3::timestamptz
   group by 1, currency
  union all
  select 'sepaRefunds', d.currency, count(*)::int, sum(r.amount_minor)::text
    from sepa_refund r join sepa_debit d on d.id = r.debit_id
   where r.merchant_id = $1 and r.created_at >= $2::timestamptz and r.created_at < $3::timestamptz
   group by d.currency`;
