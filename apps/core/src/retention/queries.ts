/**
 * Every hand-written statement of retention/, named for its role; parameters as `$n`, never values in the text.
 * Each deletes at most `$limit` rows, so one sweep never holds a long transaction over a large backlog.
 */

/**
 * Erases the sealed card (number and CVV) of tokens spent or past their expiry by their merchant's clock:
 * core's time $1 plus the merchant's offset (none when $2, live), at most $3 of them; counts them.
 */
export const eraseTokenCards = `with gone as (
       update payment_fields_token t set sealed_card = null
       where t.token in (
         select t2.token from payment_fields_token t2 join merchant m on m.id = t2.merchant_id
         where t2.sealed_card is not null
           and (t2.used_at is not null or t2.expires_at <= $1::timestamptz
             + make_interval(secs => case when $2::boolean then 0 else m.clock_offset_seconds end))
         limit $3)
       returning 1)
     select count(*)::integer as count from gone`;

/**
 * Deletes IPN deliveries (their bodies: names, card facts) made more than $1 days ago that are finished,
 * delivered or given up; at most $2; counts them. One still being retried stays until it finishes.
 */
export const deleteOldDeliveries = `with gone as (
       delete from ipn_delivery where id in (
         select id from ipn_delivery
         where created_at < now() - make_interval(days => $1) and state not in ('pending', 'sending')
         limit $2)
       returning 1)
     select count(*)::integer as count from gone`;

/** Deletes IPN secrets whose rotation's overlap has ended (they sign nothing any more); at most $1; counts them. */
export const deleteRetiredIpnSecrets = `with gone as (
       delete from ipn_secret where id in (
         select id from ipn_secret where retires_at <= now() limit $1)
       returning 1)
     select count(*)::integer as count from gone`;

/**
 * Deletes failed-login counts (usernames and client addresses) with no failure for $1 hours and no block
 * still running; at most $2; counts them.
 */
export const deleteOldLoginFailures = `with gone as (
       delete from login_failure where key in (
         select key from login_failure
         where last_failure_at < now() - make_interval(hours => $1)
           and (blocked_until is null or blocked_until < now())
         limit $2)
       returning 1)
     select count(*)::integer as count from gone`;
