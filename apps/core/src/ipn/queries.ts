/**
 * Every hand-written statement of ipn, named for its role; parameters as `$n`, never values in the text.
 */

/** A claim: the row is 'sending', its attempt counted, its next_try_at a lease ($3 ms) ahead. */
const claimed = `update ipn_delivery d
    set state = 'sending', attempts = d.attempts + 1, next_try_at = now() + $3 * interval '1 millisecond'
   from due where d.id = due.id
 returning d.id, d.merchant_id, d.destination, d.body, d.attempts, d.max_attempts, d.created_at`;

/** Claims due rows ($1 at most, lease $3 ms), oldest due first, of any destination but the excluded ones. */
export const claimDue = `with due as (
  select id from ipn_delivery
   where state in ('pending', 'sending') and next_try_at <= now() and destination <> all($2::text[])
   order by next_try_at limit $1 for update skip locked)
${claimed}`;

/** Claims due rows of one destination $2 (its circuit's probe). */
export const claimOfDestination = `with due as (
  select id from ipn_delivery
   where state in ('pending', 'sending') and next_try_at <= now() and destination = $2
   order by next_try_at limit $1 for update skip locked)
${claimed}`;

/** Extends the lease ($2 ms) of the rows $1 this core is sending. */
export const extendLeases = `update ipn_delivery set next_try_at = now() + $2 * interval '1 millisecond'
      where id = any($1::bigint[]) and state = 'sending'`;

/** Every outcome of a batch, as parallel arrays: rows delivered or failed meanwhile are left as they are. */
export const recordOutcomes = `update ipn_delivery d
        set state = o.state,
            attempts = d.attempts - o.released::int,
            last_status = case when o.released then d.last_status else o.status end,
            last_error = case when o.released then d.last_error else o.error end,
            next_try_at = o.next_try_at,
            delivered_at = o.delivered_at
       from unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::timestamptz[], $6::timestamptz[],
                   $7::boolean[]) as o(id, state, status, error, next_try_at, delivered_at, released)
      where d.id = o.id and d.state in ('pending', 'sending')`;

/** One delivery row per destination ($4, in order) of an event. */
export const insertDeliveries = `insert into ipn_delivery (merchant_id, event, reference_number, destination, body, max_attempts, request_id)
     select $1, $2, $3, destination, $5, $6, $7
       from unnest($4::text[]) with ordinality as t(destination, n) order by n`;

/** What the delivery log shows of a row. */
const deliveryColumns = `id, event, reference_number, destination, state, attempts, max_attempts, last_status, last_error,
  next_try_at, created_at, delivered_at, request_id`;

/**
 * A page of the merchant's ($1) deliveries, newest first, before id $2, filtered by state, event and
 * destination ($3-$5), $6 rows.
 */
export const deliveryPage = `select ${deliveryColumns} from ipn_delivery
      where merchant_id = $1 and ($2::bigint is null or id < $2) and ($3::text is null or state = $3)
        and ($4::text is null or event = $4) and ($5::text is null or destination = $5)
      order by id desc limit $6`;

/** One more attempt at the merchant's ($2) delivery $1, due now. */
export const redeliverNow = `update ipn_delivery
        set state = 'pending', max_attempts = attempts + 1, next_try_at = now(), delivered_at = null
      where id = $1 and merchant_id = $2
  returning ${deliveryColumns}`;

/** The merchant's IPN secret. Parameters only: the secret never appears in a statement's text. */
export const readIpnSecret = 'select ipn_secret from merchant where id = $1';

/** Sets the merchant's ($2) secret $1 while it has none. */
export const setFirstIpnSecret = 'update merchant set ipn_secret = $1 where id = $2 and ipn_secret is null';

/** Several merchants' IPN secrets. */
export const readIpnSecrets = 'select id, ipn_secret from merchant where id = any($1::int[])';

/** Replaces the merchant's ($2) secret with $1. */
export const replaceIpnSecret = 'update merchant set ipn_secret = $1 where id = $2';
