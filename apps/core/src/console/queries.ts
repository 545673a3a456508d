/**
 * The console's statements (console/). Sessions are found by the SHA-256 of their token; the reads below are
 * always filtered by the session's merchant ($1).
 */

/**
 * Opens a session: $1 token hash, $2 merchant, $3 the credentials generation when it signed in (the merchant's,
 * or the console user's), $4 the console user, null for the merchant's own credentials.
 */
export const insertSession = `insert into console_session (token_hash, merchant_id, credentials_generation, console_user_id)
     values ($1, $2, $3, $4)`;

/**
 * The live session with token hash $1, its idle time now restarted: not ended, seen within $2 seconds, opened
 * within $3 seconds, and the password it signed in with unchanged since (the merchant's, or its console
 * user's); with the console user's name and permissions.
 */
export const touchSession = `update console_session s set last_seen_at = now()
     from merchant m
     where s.token_hash = $1 and s.ended_at is null and m.id = s.merchant_id
       and s.credentials_generation = case when s.console_user_id is null then m.credentials_generation
         else (select u.credentials_generation from console_user u where u.id = s.console_user_id) end
       and s.last_seen_at > now() - make_interval(secs => $2)
       and s.created_at > now() - make_interval(secs => $3)
     returning s.merchant_id,
       coalesce((select u.username from console_user u where u.id = s.console_user_id), m.username) as username,
       (select u.permissions from console_user u where u.id = s.console_user_id) as permissions`;

/** Ends the session with token hash $1. */
export const endSession =
  'update console_session set ended_at = now() where token_hash = $1 and ended_at is null';

/**
 * Merchant $1's card transactions, newest first, after id $2, matching each criterion given (null: any):
 * $3 id, $4 merchantTransactionId, $5 card last four, $6 amount in minor units, $7 currency, $8 status
 * (AUTHORIZED, CAPTURED, REVERSED, or REFUNDED / PARTIALLY_REFUNDED by the refunded amount), $9 and $10 the
 * first and last UTC day; at most $11 rows.
 */
export const searchTransactions = `select t.id, t.merchant_transaction_id, t.status, t.type, t.currency, t.amount_minor,
       t.captured_minor, t.refunded_minor, t.authorized_at,
       coalesce(c.last_four, t.wallet ->> 'lastFour') as last_four, coalesce(c.brand, t.wallet ->> 'brand') as brand
     from card_transaction t left join stored_card c on c.id = t.card_id
     where t.merchant_id = $1 and ($2::bigint is null or t.id < $2)
       and ($3::bigint is null or t.id = $3)
       and ($4::text is null or t.merchant_transaction_id = $4)
       and ($5::text is null or coalesce(c.last_four, t.wallet ->> 'lastFour') = $5)
       and ($6::bigint is null or t.amount_minor = $6)
       and ($7::text is null or t.currency = $7)
       and ($8::text is null
         or ($8 = 'REFUNDED' and t.refunded_minor > 0 and t.refunded_minor = t.captured_minor)
         or ($8 = 'PARTIALLY_REFUNDED' and t.refunded_minor > 0 and t.refunded_minor < t.captured_minor)
         or (t.status = $8 and t.refunded_minor = 0))
       and ($9::date is null or t.authorized_at >= $9::date)
       and ($10::date is null or t.authorized_at < $10::date + 1)
     order by t.id desc limit $11`;

/** Merchant $1's captured volume per UTC day and currency from $2 (a timestamp) on. */
export const volumeByDay = `select to_char(authorized_at at time zone 'UTC', 'YYYY-MM-DD') as day, currency,
       sum(captured_minor)::bigint as captured_minor
     from card_transaction where merchant_id = $1 and authorized_at >= $2 and captured_minor > 0
     group by 1, 2 order by 1, 2`;

/**
 * Merchant $1's settled authorization attempts per day from $2 on, approved and declined. Attempts are dated
 * by the server's clock: $3 is the merchant's sandbox clock offset in seconds, which dates them on its clock.
 */
export const authorizationsByDay = `select to_char((created_at + make_interval(secs => $3)) at time zone 'UTC', 'YYYY-MM-DD') as day,
       count(*) filter (where state = 'DONE')::int as approved,
       count(*) filter (where state = 'DECLINED')::int as declined
     from payment_attempt
     where merchant_id = $1 and kind = 'AUTHORIZE' and created_at >= $2::timestamptz - make_interval(secs => $3)
     group by 1 order by 1`;

/** Merchant $1's declined authorizations from $2 on ($3 as above) by reason (UNKNOWN: declined before reasons were kept). */
export const declinesByReason = `select coalesce(decline_reason, 'UNKNOWN') as reason, count(*)::int as count
     from payment_attempt
     where merchant_id = $1 and kind = 'AUTHORIZE' and state = 'DECLINED'
       and created_at >= $2::timestamptz - make_interval(secs => $3)
     group by 1 order by 2 desc, 1`;

/** Merchant $1's IPN deliveries created from $2 on ($3 as above), by state. */
export const deliveriesByState = `select state, count(*)::int as count
     from ipn_delivery where merchant_id = $1 and created_at >= $2::timestamptz - make_interval(secs => $3)
     group by 1 order by 1`;
