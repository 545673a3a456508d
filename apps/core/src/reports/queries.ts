/**
 * Every hand-written statement of reports, named for its role; parameters as `$n`, never values in the text.
 */

import { vendorBalances } from '../marketplace/queries.ts';

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
   where r.merchant_id = $1 and r.status <> 'CANCELLED'
     and r.created_at >= $2::timestamptz and r.created_at < $3::timestamptz
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

/*
 * The Reporting API's reports (catalogue.ts). Each is a source: every row of the report with its display
 * columns named as the original names them, plus what paging and totals read:
 * - k_at, k_rank, k_id: the row's place in the report's order (time, kind, id), unique per row;
 * - currency and total_minor: what gettotal sums per currency.
 * Parameters are named (`:merchant`, `:from`, `:to` and the filters `:currency`, `:transactionType`,
 * `:paymentType`, `:chargeStatus`) and become `$n` parameters in bound.ts; a null filter selects all.
 * Times are written in the reporting zone (window.ts: UTC-8 all year).
 */

const reportingTime = (column: string) =>
  `to_char(${column} at time zone interval '-08:00', 'MM/DD/YYYY HH24:MI:SS')`;
const reportingDay = (column: string) => `to_char(${column} at time zone interval '-08:00', 'MM/DD/YYYY')`;
const inWindow = (column: string) => `${column} >= :from::timestamptz and ${column} < :to::timestamptz`;
const ofCurrency = (column: string) => `(:currency::text is null or ${column} = :currency::text)`;
const shopperColumns = `sh.id::text as "Shopper ID", sh.first_name as "Shopper First Name",
       sh.last_name as "Shopper Last Name", sh.email as "Shopper Email", sh.country as "Shopper Country",
       sh.company_name as "Company Name"`;

/**
 * One table's rows of a report. Paged, only those after the cursor (:afterAt, :afterRank, :afterId) in the
 * report's (time, rank, id) order, in that order, at most :limit: the row comparison on (time, id) is what
 * the table's report index (migration 0023) answers, so a batch reads where the last ended. For this
 * table's rank the cursor's rank turns into an id bound: a later rank takes every id at the cursor's time,
 * an earlier one none.
 */
const part = (rank: number, at: string, id: string, paged: boolean, select: string) =>
  paged
    ? `(${select}
     and (${at}, ${id}) > (:afterAt::timestamptz, case when ${rank} > :afterRank::int then -1
                                                     when ${rank} < :afterRank::int then 9223372036854775807
                                                     else :afterId::bigint end)
   order by ${at}, ${id} limit :limit::int)`
    : select;

/** One TransactionDetail branch: its transaction type and payment type, for the filters. */
const detailFilter = (transactionType: string, paymentType: string) =>
  `(:transactionType::text is null or :transactionType::text = '${transactionType}')
   and (:paymentType::text is null or :paymentType::text = '${paymentType}')`;

/**
 * Every movement of money in the window, signed as it moves the merchant's balance: card sales captured
 * (at authorization: a sale authorizes and captures at once), card refunds, chargebacks, SEPA debits the
 * bank collected (at settlement) and SEPA refunds and returns.
 */
export const transactionDetail = (paged: boolean) =>
  [
    part(
      1,
      't.authorized_at',
      't.id',
      paged,
      `
  select t.authorized_at as k_at, 1 as k_rank, t.id as k_id, t.currency, t.captured_minor as total_minor,
         t.id::text as "Invoice ID", t.id::text as "Original Invoice ID",
         t.merchant_transaction_id as "Merchant Transaction ID", 'Sale' as "Transaction Type",
         ${reportingTime('t.authorized_at')} as "Transaction Date", null as "Refund / Chargeback Reason",
         'Credit Card' as "Payment Type", c.brand as "Card Network", t.currency as "Auth. Currency",
         t.captured_minor as "Merchant Sales (Auth Currency)", ${shopperColumns},
         t.soft_descriptor as "Soft Descriptor"
    from card_transaction t join shopper sh on sh.id = t.shopper_id join stored_card c on c.id = t.card_id
   where t.merchant_id = :merchant and t.status = 'CAPTURED' and ${inWindow('t.authorized_at')}
     and ${ofCurrency('t.currency')} and ${detailFilter('SALE', 'Credit Card')}`,
    ),
    part(
      2,
      'r.created_at',
      'r.id',
      paged,
      `
  select r.created_at, 2, r.id, t.currency, -r.amount_minor,
         r.id::text, t.id::text, t.merchant_transaction_id, 'Refund', ${reportingTime('r.created_at')}, r.reason,
         'Credit Card', c.brand, t.currency, -r.amount_minor, ${shopperColumns}, t.soft_descriptor
    from refund r join card_transaction t on t.id = r.transaction_id
    join shopper sh on sh.id = t.shopper_id join stored_card c on c.id = t.card_id
   where r.merchant_id = :merchant and r.status <> 'CANCELLED' and ${inWindow('r.created_at')}
     and ${ofCurrency('t.currency')} and ${detailFilter('REFUND', 'Credit Card')}`,
    ),
    part(
      3,
      'cb.created_at',
      'cb.id',
      paged,
      `
  select cb.created_at, 3, cb.id, cb.currency, -cb.amount_minor,
         cb.id::text, t.id::text, t.merchant_transaction_id, 'Chargeback', ${reportingTime('cb.created_at')},
         cb.reason, 'Credit Card', c.brand, cb.currency, -cb.amount_minor, ${shopperColumns}, t.soft_descriptor
    from chargeback cb join card_transaction t on t.id = cb.transaction_id
    join shopper sh on sh.id = t.shopper_id join stored_card c on c.id = t.card_id
   where cb.merchant_id = :merchant and ${inWindow('cb.created_at')}
     and ${ofCurrency('cb.currency')} and ${detailFilter('CHARGEBACK', 'Credit Card')}`,
    ),
    part(
      1,
      'd.settled_at',
      'd.id',
      paged,
      `
  select d.settled_at, 1, d.id, d.currency, d.amount_minor,
         d.id::text, d.id::text, d.merchant_transaction_id, 'Sale', ${reportingTime('d.settled_at')}, null,
         'Direct Debit', null, d.currency, d.amount_minor, ${shopperColumns}, null
    from sepa_debit d join shopper sh on sh.id = d.shopper_id
   where d.merchant_id = :merchant and d.status in ('SUCCESS', 'REFUNDED') and ${inWindow('d.settled_at')}
     and ${ofCurrency('d.currency')} and ${detailFilter('SALE', 'Direct Debit')}`,
    ),
    part(
      2,
      'r.created_at',
      'r.id',
      paged,
      `
  select r.created_at, 2, r.id, d.currency, -r.amount_minor,
         r.id::text, d.id::text, d.merchant_transaction_id, 'Refund', ${reportingTime('r.created_at')},
         case when r.returned then coalesce(r.reason, 'Returned by the bank') else r.reason end,
         'Direct Debit', null, d.currency, -r.amount_minor, ${shopperColumns}, null
    from sepa_refund r join sepa_debit d on d.id = r.debit_id join shopper sh on sh.id = d.shopper_id
   where r.merchant_id = :merchant and ${inWindow('r.created_at')}
     and ${ofCurrency('d.currency')} and ${detailFilter('REFUND', 'Direct Debit')}`,
    ),
  ].join('\n  union all\n');

/** Subscription charges that ended in the window, charged or declined; totals count the charged ones. */
export const recurringCharges = (paged: boolean) =>
  [
    part(
      0,
      'coalesce(ch.charged_at, ch.updated_at)',
      'ch.id',
      paged,
      `
  select coalesce(ch.charged_at, ch.updated_at) as k_at, 0 as k_rank, ch.id as k_id, ch.currency,
         case when ch.status = 'CHARGED' then ch.amount_minor else 0 end as total_minor,
         coalesce(ch.card_transaction_id, ch.sepa_debit_id)::text as "Invoice ID",
         ch.subscription_id::text as "Subscription ID", ch.id::text as "Charge ID",
         ${reportingTime('coalesce(ch.charged_at, ch.updated_at)')} as "Charge Date",
         case when ch.status = 'CHARGED' then 'Success' else 'Failure' end as "Charge Status",
         ch.decline_reason as "Failure Reason",
         case when s.card_id is null then 'Direct Debit' else 'Credit Card' end as "Payment Type",
         p.name as "Contract Name", ch.currency as "Auth. Currency", ch.amount_minor as "Amount (Auth. Currency)",
         ${shopperColumns}
    from subscription_charge ch join subscription s on s.id = ch.subscription_id
    left join recurring_plan p on p.id = s.plan_id join shopper sh on sh.id = s.shopper_id
   where ch.merchant_id = :merchant and ch.status in ('CHARGED', 'DECLINED')
     and ${inWindow('coalesce(ch.charged_at, ch.updated_at)')} and ${ofCurrency('ch.currency')}
     and (:chargeStatus::text is null
          or :chargeStatus::text = case when ch.status = 'CHARGED' then 'Success' else 'Failure' end)`,
    ),
  ].join('\n  union all\n');

/**
 * The subscriptions active now, with the price of their next charge: the subscription's own price or its
 * plan's, per unit times the quantity; a merchant-managed one (no plan) at its last charge.
 */
export const activeSubscriptions = (paged: boolean) =>
  [
    part(
      0,
      's.created_at',
      's.id',
      paged,
      `
  select s.created_at as k_at, 0 as k_rank, s.id as k_id, s.currency,
         coalesce(s.override_recurring_charge_minor, p.recurring_charge_minor, last.amount_minor, 0)
           * s.quantity as total_minor,
         first.invoice_id as "Invoice ID", s.id::text as "Subscription ID",
         sh.first_name as "First Name", sh.last_name as "Last Name", sh.email as "Email Address",
         p.name as "Contract Name",
         coalesce(s.override_recurring_charge_minor, p.recurring_charge_minor, last.amount_minor, 0)
           * s.quantity as "Price (Auth. Currency)",
         s.currency as "Auth. Currency", ${reportingDay('last.charged_at')} as "Last Charge Date",
         to_char(s.next_charge_date, 'MM/DD/YYYY') as "Next Charge Date", sh.id::text as "Shopper ID",
         ${reportingDay('s.created_at')} as "Subscription Creation Date"
    from subscription s left join recurring_plan p on p.id = s.plan_id join shopper sh on sh.id = s.shopper_id
    left join lateral (select coalesce(card_transaction_id, sepa_debit_id)::text as invoice_id
                         from subscription_charge where subscription_id = s.id and status = 'CHARGED'
                        order by id limit 1) first on true
    left join lateral (select amount_minor, charged_at from subscription_charge
                        where subscription_id = s.id and status = 'CHARGED' order by id desc limit 1) last on true
   where s.merchant_id = :merchant and s.status = 'ACTIVE' and ${ofCurrency('s.currency')}`,
    ),
  ].join('\n  union all\n');

/**
 * Refunds the processor has not done yet: the refund rows still PENDING, the same rows the refund answer and
 * the cancellation read (docs/conformance.md, Pending refunds).
 */
export const pendingRefunds = (paged: boolean) =>
  [
    part(
      0,
      'r.created_at',
      'r.id',
      paged,
      `
  select r.created_at as k_at, 0 as k_rank, r.id as k_id, t.currency, r.amount_minor as total_minor,
         r.id::text as "ID", t.id::text as "Invoice ID", t.merchant_transaction_id as "Merchant Transaction ID",
         ${reportingTime('r.created_at')} as "Pending Refund Creation Date", t.currency as "Auth. Currency",
         r.amount_minor as "Refund Amount (Auth. Currency)", ${shopperColumns}
    from refund r join card_transaction t on t.id = r.transaction_id
    join shopper sh on sh.id = t.shopper_id
   where r.merchant_id = :merchant and r.status = 'PENDING' and ${ofCurrency('t.currency')}`,
    ),
  ].join('\n  union all\n');

/** Disputes opened in the window, whatever became of them since. */
export const chargebacks = (paged: boolean) =>
  [
    part(
      0,
      'cb.created_at',
      'cb.id',
      paged,
      `
  select cb.created_at as k_at, 0 as k_rank, cb.id as k_id, cb.currency, cb.amount_minor as total_minor,
         cb.id::text as "Chargeback/Refund Invoice ID", cb.amount_minor as "Chargeback/Refund Invoice Amount",
         cb.currency as "Auth. Currency", ${reportingTime('cb.created_at')} as "Event Date",
         'First ChargeBack' as "Event Type", cb.status as "Chargeback Status",
         t.id::text as "Original Invoice ID", ${reportingTime('t.authorized_at')} as "Original Invoice Date",
         t.merchant_transaction_id as "Merchant Transaction ID", cb.reason_code as "Reason Code",
         cb.reason as "Reason Description", 'Credit Card' as "Payment Type", c.last_four as "Last 4 Digits",
         ${shopperColumns}
    from chargeback cb join card_transaction t on t.id = cb.transaction_id
    join shopper sh on sh.id = t.shopper_id join stored_card c on c.id = t.card_id
   where cb.merchant_id = :merchant and ${inWindow('cb.created_at')} and ${ofCurrency('cb.currency')}`,
    ),
  ].join('\n  union all\n');

/**
 * The balance per currency since the first payment (Paywire pays nothing out: the acquirer and the bank do):
 * sales and collected debits, less refunds, returns and chargebacks not won (open ones hold their amount).
 */
export const accountBalance = (_paged: boolean) => `
  with movement as (
    select currency, captured_minor as gross, 0::bigint as refunds, 0::bigint as chargebacks
      from card_transaction where merchant_id = :merchant and status = 'CAPTURED'
    union all
    select t.currency, 0, r.amount_minor, 0
      from refund r join card_transaction t on t.id = r.transaction_id
     where r.merchant_id = :merchant and r.status <> 'CANCELLED'
    union all
    select currency, 0, 0, amount_minor from chargeback
     where merchant_id = :merchant and status <> 'COMPLETED_WON'
    union all
    select currency, amount_minor, 0, 0 from sepa_debit
     where merchant_id = :merchant and status in ('SUCCESS', 'REFUNDED')
    union all
    select d.currency, 0, r.amount_minor, 0
      from sepa_refund r join sepa_debit d on d.id = r.debit_id where r.merchant_id = :merchant)
  select 'epoch'::timestamptz as k_at, 0 as k_rank, row_number() over (order by currency) as k_id, currency,
         sum(gross) - sum(refunds) - sum(chargebacks) as total_minor,
         currency as "Payout Currency", sum(gross) as "Gross Amount", sum(refunds) as "Refunds",
         sum(chargebacks) as "Chargebacks", sum(gross) - sum(refunds) - sum(chargebacks) as "Net Amount"
    from movement where ${ofCurrency('currency')} group by currency`;

/**
 * SEPA settlement per reporting-zone day and currency: debits the bank collected or refused, refunds and
 * returns, and what the day adds to the balance.
 */
export const payoutSummary = (_paged: boolean) => `
  with movement as (
    select (settled_at at time zone interval '-08:00')::date as day, currency,
           (status <> 'FAIL')::int as collected, case when status <> 'FAIL' then amount_minor else 0 end as collected_minor,
           (status = 'FAIL')::int as failed, case when status = 'FAIL' then amount_minor else 0 end as failed_minor,
           0 as refunded, 0::bigint as refunded_minor
      from sepa_debit where merchant_id = :merchant and ${inWindow('settled_at')}
    union all
    select (r.created_at at time zone interval '-08:00')::date, d.currency, 0, 0, 0, 0, 1, r.amount_minor
      from sepa_refund r join sepa_debit d on d.id = r.debit_id
     where r.merchant_id = :merchant and ${inWindow('r.created_at')})
  select day::timestamptz as k_at, 0 as k_rank, row_number() over (partition by day order by currency) as k_id,
         currency, sum(collected_minor) - sum(refunded_minor) as total_minor,
         to_char(day, 'MM/DD/YYYY') as "Settlement Date", 'Direct Debit' as "Payment Type",
         currency as "Auth. Currency", sum(collected)::text as "Collected Count",
         sum(collected_minor) as "Collected Amount", sum(failed)::text as "Failed Count",
         sum(failed_minor) as "Failed Amount", sum(refunded)::text as "Refunded Count",
         sum(refunded_minor) as "Refunded Amount", sum(collected_minor) - sum(refunded_minor) as "Net Amount"
    from movement where ${ofCurrency('currency')} group by day, currency`;

/**
 * Vendor payouts claimed in the window (marketplace/payouts.ts), one row per vendor, period and currency,
 * with what became of each: PENDING (being paid), PAID, or RETRY (the bank refused; tried again on the
 * vendor's next payout day).
 */
export const payoutDetail = (paged: boolean) =>
  part(
    0,
    'p.created_at',
    'p.id',
    paged,
    `
  select p.created_at as k_at, 0 as k_rank, p.id as k_id, p.currency, p.amount_minor as total_minor,
         p.id::text as "Payout ID", v.id::text as "Vendor ID",
         coalesce(v.contact->>'name', concat_ws(' ', v.contact->>'firstName', v.contact->>'lastName')) as "Vendor Name",
         p.payout_type as "Payout Type", to_char(p.period_end, 'MM/DD/YYYY') as "Period End",
         ${reportingTime('p.paid_at')} as "Payout Date", p.status as "Payout Status", p.attempts::text as "Attempts",
         p.failure as "Failure Reason", p.currency as "Payout Currency", p.amount_minor as "Payout Amount"
    from vendor_payout p join vendor v on v.id = p.vendor_id
   where p.merchant_id = :merchant and ${inWindow('p.created_at')} and ${ofCurrency('p.currency')}`,
  );

/**
 * Each of the merchant's vendors' balance per currency now: what its next payout would pay, before the
 * vendor's minimum (marketplace/queries.ts's vendorBalances, the one rule payouts pay by, over every vendor
 * of the merchant with no period end).
 */
export const vendorBalance = (_paged: boolean) => `
  with balance as (${vendorBalances.replace(
    '$1::jsonb',
    `(select coalesce(jsonb_agg(jsonb_build_object('vendor_id', id, 'period_end', 'infinity')), '[]'::jsonb)
        from vendor where merchant_id = :merchant)`,
  )})
  select 'epoch'::timestamptz as k_at, 0 as k_rank, row_number() over (order by b.vendor_id, b.currency) as k_id,
         b.currency, b.balance_minor::bigint as total_minor, v.id::text as "Vendor ID",
         coalesce(v.contact->>'name', concat_ws(' ', v.contact->>'firstName', v.contact->>'lastName')) as "Vendor Name",
         b.currency as "Balance Currency", b.balance_minor::bigint as "Balance"
    from balance b join vendor v on v.id = b.vendor_id
   where ${ofCurrency('b.currency')}`;

/** A batch of a paged source after the cursor, in the report's order (each part is already bounded). */
export const reportPage = (source: string) => `
  select r.*, r.k_at::text as cursor_at from (${source}) r
   where (r.k_at, r.k_rank, r.k_id) > (:afterAt::timestamptz, :afterRank::int, :afterId::bigint)
   order by r.k_at, r.k_rank, r.k_id limit :limit::int`;

export const reportCount = (source: string) => `select count(*)::int as count from (${source}) r`;

export const reportTotals = (source: string) => `
  select currency, count(*)::int as row_count, sum(total_minor)::text as total_minor
    from (${source}) r group by currency order by currency`;
