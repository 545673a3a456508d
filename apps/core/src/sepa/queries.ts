/**
 * Every hand-written statement of sepa, named for its role; parameters as `$n`, never values in the text.
 */

/** The IPN destinations of the merchants in $1 (a JSON array of ids). */
export const ipnDestinationsOf = `select merchant_id, destinations from ipn_config
     where merchant_id in (select value::int from jsonb_array_elements_text($1::jsonb))`;

/**
 * Locks up to $3 due debits of each merchant ($4 in all), due by each merchant's now: core's time $1 plus its
 * offset (none when $2, live).
 */
export const dueDebits = `select d.id, d.merchant_id, d.merchant_transaction_id, d.shopper_id, d.status, d.outcome, d.currency,
              d.amount_minor, d.refunded_minor, d.payer_first_name, d.payer_last_name, d.next_action_at,
              m.merchant_now, ma.reference, ma.accepted_at, ma.iban_first_four, ma.iban_last_four
       from (select id, $1::timestamptz + make_interval(secs => case when $2::boolean then 0 else clock_offset_seconds end)
               as merchant_now from merchant) m
       cross join lateral (
         select * from sepa_debit d
         where d.merchant_id = m.id and d.next_action_at is not null and d.next_action_at <= m.merchant_now
         order by d.next_action_at
         limit $3
         for update skip locked) d
       join sepa_mandate ma on ma.id = d.mandate_id
       limit $4`;

/** Moves debits on by the bank's answers ($1, a JSON array of transitions). */
export const applyTransitions = `update sepa_debit d
       set status = v.status, next_action_at = v.next_action_at,
           refunded_minor = d.refunded_minor + v.refund_minor,
           settled_at = coalesce(d.settled_at, v.merchant_now), updated_at = now()
       from jsonb_to_recordset($1::jsonb)
         as v(id bigint, merchant_id int, status text, next_action_at timestamptz, refund_minor bigint,
              merchant_now timestamptz)
       where d.id = v.id and d.merchant_id = v.merchant_id`;

/** The bank's returns of collected debits ($1, a JSON array). */
export const insertReturns = `insert into sepa_refund (merchant_id, debit_id, amount_minor, returned)
         select merchant_id, debit_id, amount_minor, true
         from jsonb_to_recordset($1::jsonb) as v(merchant_id int, debit_id bigint, amount_minor bigint)`;

/** The shopper's mandate for an IBAN, unless it has one (insert-or-nothing: concurrent first debits share one). */
export const insertMandate = `insert into sepa_mandate (merchant_id, shopper_id, reference, iban_fingerprint, sealed_iban,
       iban_first_four, iban_last_four, accepted_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (shopper_id, iban_fingerprint) do nothing`;
