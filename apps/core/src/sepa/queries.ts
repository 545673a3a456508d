/**
 * Every hand-written statement of sepa, named for its role; parameters as `$n`, never values in the text.
 */

/** The IPN destinations of the merchants in $1 (a JSON array of ids). */
export const ipnDestinationsOf = `select merchant_id, destinations from ipn_config
     where merchant_id in (select value::int from jsonb_array_elements_text($1::jsonb))`;

/**
 * Claims up to $3 due debits of each merchant ($4 in all), due by each merchant's now (core's time $1 plus its
 * offset, none when $2: live), by leasing them for $5 seconds; a debit leased to another run is not due. With
 * the mandate's scheme and sealed account (an IBAN, or an ACH account with its routing number and type),
 * which the bank is given. The lease comes back as text, to the microsecond, since
 * it is the claim's token (lockPresented).
 */
export const claimDueDebits = `with due as (
         select d.id, m.merchant_now
         from (select id, $1::timestamptz + make_interval(secs => case when $2::boolean then 0 else clock_offset_seconds end)
                 as merchant_now from merchant) m
         cross join lateral (
           select id from sepa_debit d
           where d.merchant_id = m.id and d.next_action_at is not null and d.next_action_at <= m.merchant_now
             and (d.presenting_until is null or d.presenting_until < now())
           order by d.next_action_at
           limit $3
           for update skip locked) d
         limit $4),
       claimed as (
         update sepa_debit d set presenting_until = now() + make_interval(secs => $5)
         from due where d.id = due.id
         returning d.id, d.merchant_id, d.status, d.outcome, d.currency, d.amount_minor, d.mandate_id,
                   d.payer_first_name, d.payer_last_name, d.presenting_until::text as presenting_until, due.merchant_now)
     select c.*, ma.sealed_iban, ma.iban_fingerprint, ma.scheme, ma.routing_number, ma.account_type
     from claimed c join sepa_mandate ma on ma.id = c.mandate_id`;

/**
 * Locks the claimed debits ($1, a JSON array of id and lease) still held by their claim, as they are now: a
 * run that outlived its lease has lost them to the next one. With what their events report.
 */
export const lockPresented = `select d.id, d.merchant_id, d.merchant_transaction_id, d.shopper_id, d.status, d.outcome, d.currency,
              d.amount_minor, d.refunded_minor, d.payer_first_name, d.payer_last_name, d.next_action_at,
              d.return_code, ma.reference, ma.accepted_at, ma.iban_first_four, ma.iban_last_four, ma.scheme,
              ma.account_type
       from jsonb_to_recordset($1::jsonb) as v(id bigint, presenting_until text)
       join sepa_debit d on d.id = v.id and d.presenting_until = v.presenting_until::timestamptz
       join sepa_mandate ma on ma.id = d.mandate_id
       for update of d`;

/** Moves debits on by the bank's answers ($1, a JSON array of transitions) and ends their lease. */
export const applyTransitions = `update sepa_debit d
       set status = v.status, outcome = coalesce(v.outcome, d.outcome),
           return_code = coalesce(d.return_code, v.return_code), next_action_at = v.next_action_at,
           refunded_minor = d.refunded_minor + v.refund_minor,
           settled_at = case when v.settled then coalesce(d.settled_at, v.merchant_now) else d.settled_at end,
           presenting_until = null, updated_at = now()
       from jsonb_to_recordset($1::jsonb)
         as v(id bigint, merchant_id int, status text, outcome text, return_code text, next_action_at timestamptz,
              refund_minor bigint, merchant_now timestamptz, settled boolean)
       where d.id = v.id and d.merchant_id = v.merchant_id`;

/** The bank's returns of collected debits ($1, a JSON array), with their ids. */
export const insertReturns = `insert into sepa_refund (merchant_id, debit_id, amount_minor, returned)
         select merchant_id, debit_id, amount_minor, true
         from jsonb_to_recordset($1::jsonb) as v(merchant_id int, debit_id bigint, amount_minor bigint)
         returning id::float8 as id, debit_id::float8 as debit_id`;

/**
 * The shopper's mandate for an account (a SEPA IBAN, or an ACH account with its routing number and type),
 * unless it has one (insert-or-nothing: concurrent first debits share one).
 */
export const insertMandate = `insert into sepa_mandate (merchant_id, shopper_id, reference, iban_fingerprint, sealed_iban,
       iban_first_four, iban_last_four, accepted_at, scheme, routing_number, account_type)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) on conflict (shopper_id, iban_fingerprint) do nothing`;
