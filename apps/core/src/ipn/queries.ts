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

/**
 * The merchant's ($1) current IPN secret, sealed, with its id (the sealed value's binding), and a secret from
 * before sealing (0029-retention) still in plain text. Parameters only: no secret appears in a statement.
 */
export const readIpnSecret = `select s.id, s.sealed_secret, m.ipn_secret as plain
  from merchant m left join ipn_secret s on s.merchant_id = m.id and s.retires_at is null where m.id = $1`;

/** A new secret's id, so its sealing can be bound to it before the row exists. */
export const nextIpnSecretId = `select nextval(pg_get_serial_sequence('ipn_secret', 'id'))::text as id`;

/**
 * The merchant's ($2) first sealed secret $3 with id $1, unless a concurrent first use wrote one; a plain
 * secret it was sealed from is cleared with it.
 */
export const insertFirstIpnSecret = `with cleared as (update merchant set ipn_secret = null where id = $2 and ipn_secret is not null)
  insert into ipn_secret (id, merchant_id, sealed_secret) values ($1::bigint, $2, $3)
  on conflict (merchant_id) where retires_at is null do nothing`;

/** Rotation, before anything: the merchant's ($1) row, locked, so one rotation at a time moves its secrets. */
export const lockSecretsOf = 'select id from merchant where id = $1 for update';

/** Rotation, first: a previous secret still overlapping (an earlier rotation's) goes now. $1 merchant. */
export const dropRetiringIpnSecrets =
  'delete from ipn_secret where merchant_id = $1 and retires_at is not null';

/** Rotation, then: the merchant's ($1) current secret still signs for $2 seconds. */
export const retireIpnSecret = `update ipn_secret set retires_at = now() + make_interval(secs => $2)
  where merchant_id = $1 and retires_at is null`;

/** Rotation, last: the new current secret, sealed ($3), id $1, of merchant $2. */
export const insertIpnSecret =
  'insert into ipn_secret (id, merchant_id, sealed_secret) values ($1::bigint, $2, $3)';

/** The secrets that sign the merchants' ($1) deliveries now: each one's current first, then one overlapping. */
export const signingIpnSecrets = `select merchant_id, id::text, sealed_secret from ipn_secret
  where merchant_id = any($1::int[]) and (retires_at is null or retires_at > now())
  order by merchant_id, retires_at nulls first`;

/** The merchants whose secret is still in plain text (from before 0029-retention). */
export const plainIpnSecrets = 'select id from merchant where ipn_secret is not null';
