/**
 * Every hand-written statement of recurring, named for its role; parameters as `$n`, never values in the text.
 * The ORM reads and writes plans and subscriptions through the API; these are the renewal workers' leases and
 * conditional moves, and the claims that make a period's charge or reminder happen once.
 */

import { factsColumns } from '../merchants/queries.ts';

/** A subscription as its renewal reads it (renewing.ts), with its merchant's facts (clock offset included). */
const renewalColumns = `s.id, s.merchant_id, s.status, s.auto_renew, s.next_period, s.next_charge_date::text,
  s.anchor_date::text, s.anchor_period, s.charges_made, s.currency, s.quantity, s.override_recurring_charge_minor,
  s.sepa_mandate_id, s.retry_at, s.failed_since, s.reminded_charge_date::text, s.shopper_id,
  sh.first_name, sh.last_name, p.id as plan_id, p.name as plan_name, p.charge_frequency,
  p.recurring_charge_minor, p.max_number_of_charges, p.grace_period_days,
  ma.reference as mandate_reference, ma.iban_last_four, ma.scheme as mandate_scheme, s.card_id, s.soft_descriptor,
  s.vendor_split, ${factsColumns}`;

/** The tables a renewal row joins to its subscription `s`. */
const renewalJoins = `join recurring_plan p on p.id = s.plan_id
  join shopper sh on sh.id = s.shopper_id
  join merchant m on m.id = s.merchant_id
  left join ipn_config c on c.merchant_id = m.id
  left join sepa_mandate ma on ma.id = s.sepa_mandate_id`;

/**
 * Leases up to $3 subscriptions with something due by their merchant's now (core's time $1 plus its offset,
 * none when $2, live) for $4 seconds, skipping those in $5 (a JSON array of ids), and reads them as renewal
 * rows. Due: a charge or retry, or (SEPA, not ACH) a reminder, whose window opens at most 14 days before the
 * charge.
 */
export const leaseDueRenewals = `with leased as (update subscription s set renewal_lease_until = now() + make_interval(secs => $4)
       from (
         select d.id from
           (select id, ($1::timestamptz + make_interval(secs => case when $2::boolean then 0 else clock_offset_seconds end))
              as merchant_now from merchant) m
         cross join lateral (
           select s.id from subscription s
           where s.merchant_id = m.id and s.status = 'ACTIVE' and s.next_charge_date is not null
             and s.next_charge_date <= (m.merchant_now at time zone 'UTC')::date + 14
             and (s.renewal_lease_until is null or s.renewal_lease_until < now())
             and s.id not in (select value::bigint from jsonb_array_elements_text($5::jsonb))
             and (coalesce(s.retry_at, s.next_charge_date::timestamp at time zone 'UTC') <= m.merchant_now
               or (s.sepa_mandate_id is not null and s.auto_renew
                 and s.reminded_charge_date is distinct from s.next_charge_date
                 and exists (select from sepa_mandate ma where ma.id = s.sepa_mandate_id and ma.scheme = 'SEPA')))
           order by s.next_charge_date
           limit $3
           for update of s skip locked) d
         limit $3) due
       where s.id = due.id
       returning s.id)
       select ${renewalColumns} from leased join subscription s on s.id = leased.id ${renewalJoins}`;

/** Extends the lease on subscription $1 by $2 seconds and reads its renewal row (as it was before). */
export const extendLeaseAndRead = `with lease as (update subscription set renewal_lease_until = now() + make_interval(secs => $2) where id = $1)
     select ${renewalColumns} from subscription s ${renewalJoins} where s.id = $1`;

/** The renewal rows, with the debit's id, of the SEPA renewal debits in $1 (a JSON array of debit ids). */
export const renewalsOfDebits = `select sc.sepa_debit_id, ${renewalColumns} from subscription_charge sc
       join subscription s on s.id = sc.subscription_id ${renewalJoins}
     where sc.sepa_debit_id in (select value::bigint from jsonb_array_elements_text($1::jsonb)) and sc.period > 0`;

/**
 * Moves subscription $1's schedule on from period $2, only while it is ACTIVE on the charge date $12, plan
 * $13, anchor $14/$15 and card $16 it was read at: status $3, next period $4 and its date $5, charges made $6, retry
 * $7, failing since $8, canceled at $9 (kept when null); the lease given back when $10, else extended by
 * $11 seconds. Returns the id when it moved. The row as read is compared as one tuple, which no index
 * serves, so the planner finds the row by its id: with separate equalities and stale statistics it chose
 * the due-date index and filtered every subscription due that day, once per renewal.
 */
export const moveScheduleIfUnchanged = `update subscription set status = $3, next_period = $4, next_charge_date = $5::date,
       charges_made = $6, retry_at = $7, failed_since = $8, canceled_at = coalesce($9, canceled_at),
       renewal_lease_until = case when $10::boolean then null else now() + make_interval(secs => $11) end,
       updated_at = now()
     where id = $1 and (next_period, status, next_charge_date, plan_id, anchor_date, anchor_period, card_id)
       is not distinct from ($2, 'ACTIVE', $12::date, $13, $14::date, $15, $16)
     returning id`;

/**
 * moveScheduleIfUnchanged for a charge's transaction, whose commit must fail when the schedule did not move: the
 * cast of the message to an integer fails the statement when no row moved.
 */
export const moveScheduleOrFail = `with moved as (${moveScheduleIfUnchanged})
     select coalesce((select min(id)::text from moved), 'the subscription changed during its renewal')::bigint as id`;

/** Gives back the renewal lease on subscription $1. */
export const releaseLease = 'update subscription set renewal_lease_until = null where id = $1';

/**
 * Claims a charge of merchant $1's subscription $2 for period $3 (kind $4, $5 minor units of $6, due $7,
 * described by $8, from $9 to $10): a new PENDING row, or a DECLINED row of the period back to PENDING for
 * one more attempt. No row when the period is CHARGED or PENDING already.
 */
export const claimPeriodCharge = `insert into subscription_charge (merchant_id, subscription_id, period, kind, status, attempt, amount_minor,
       currency, due_date, description, from_date, to_date, created_at, updated_at)
     values ($1, $2, $3, $4, 'PENDING', 1, $5, $6, $7, $8, $9, $10, now(), now())
     on conflict (subscription_id, period) do update
       set status = 'PENDING', attempt = subscription_charge.attempt + 1, amount_minor = excluded.amount_minor,
         updated_at = now()
       where subscription_charge.status = 'DECLINED'
     returning id, attempt`;

/**
 * Takes PENDING charge $1 at attempt $2 to its next attempt, if it is older than $3 seconds and its attempt
 * (acquirer reference $4) is not pending, voiding or done at the acquirer.
 */
export const reclaimStaleCharge = `update subscription_charge c set attempt = attempt + 1, updated_at = now()
     where c.id = $1 and c.attempt = $2 and c.status = 'PENDING'
       and c.updated_at < now() - make_interval(secs => $3)
       and not exists (select 1 from payment_attempt a where a.reference = $4::uuid
         and a.state in ('PENDING', 'VOIDING', 'DONE'))
     returning attempt`;

/** Claims the reminder of merchant $2's subscription $1 for the debit on $3: a row only the first time. */
export const claimReminder = `update subscription set reminded_charge_date = $3::date
     where id = $1 and merchant_id = $2 and reminded_charge_date is distinct from $3::date returning id`;

/** A new subscription's id, taken before its row is written (its first sale carries it). */
export const nextSubscriptionId = `select nextval(pg_get_serial_sequence('subscription', 'id')) as id`;

/** The card a sale ($1) was made with. */
export const cardOfSale = 'select card_id from card_transaction where id = $1';

/** Charge $1 CHARGED at $2 by card transaction $3 or SEPA debit $4. */
export const settleCharge = `update subscription_charge set status = 'CHARGED', charged_at = $2, card_transaction_id = $3,
       sepa_debit_id = $4, decline_reason = null, updated_at = now()
     where id = $1`;

/** settleCharge, answering the row as it is then. */
export const settleChargeReturning = `${settleCharge} returning *`;

/**
 * claimPeriodCharge for a batch of renewals at once ($1, a JSON array of merchant_id, subscription_id,
 * period, amount_minor, currency, due_date): the same rule, one statement. Returns the rows claimed.
 */
export const claimRenewalCharges = `insert into subscription_charge (merchant_id, subscription_id, period, kind, status, attempt,
       amount_minor, currency, due_date, created_at, updated_at)
     select v.merchant_id, v.subscription_id, v.period, 'RECURRING', 'PENDING', 1, v.amount_minor, v.currency,
       v.due_date, now(), now()
     from jsonb_to_recordset($1::jsonb)
       as v(merchant_id int, subscription_id bigint, period int, amount_minor bigint, currency text, due_date date)
     on conflict (subscription_id, period) do update
       set status = 'PENDING', attempt = subscription_charge.attempt + 1, amount_minor = excluded.amount_minor,
         updated_at = now()
       where subscription_charge.status = 'DECLINED'
     returning subscription_id, period, id, attempt`;

/**
 * When subscription $1 of merchant $2 is next due to the renewal worker (its retry, else its charge date's
 * start), and its status: the sandbox's run-specific moves the merchant's clock there.
 */
export const subscriptionDueAt = `select status, coalesce(retry_at, next_charge_date::timestamp at time zone 'UTC') as due_at
  from subscription where id = $1 and merchant_id = $2`;
