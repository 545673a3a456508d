/**
 * Every hand-written statement of merchants, named for its role; parameters as `$n`, never values in the text.
 */
import { routingColumns } from '../processors/accounts/queries.ts';

/**
 * The facts' columns, for any query that joins `merchant m left join ipn_config c on c.merchant_id = m.id`; the
 * current IPN secret comes sealed, with the id it is bound to (ipn/secret.ts); the fraud rules and the
 * routing table by the merchant's primary key, so a call screening and routing its sale reads them with the
 * rest.
 */
export const factsColumns = `m.clock_offset_seconds as "offset", c.destinations, c.ensure_notification_receipt as ensure_receipt,
  (select json_build_object('id', s.id::text, 'sealed', s.sealed_secret) from ipn_secret s
    where s.merchant_id = m.id and s.retires_at is null) as ipn_secret,
  (select f.rules from fraud_settings f where f.merchant_id = m.id) as fraud_rules,
  ${routingColumns}`;
export const factsSource = 'merchant m left join ipn_config c on c.merchant_id = m.id';

/** A merchant's facts (merchants/facts.ts), with their version (0046). */
export const merchantFacts = `select m.facts_version::text as facts_version, ${factsColumns} from ${factsSource} where m.id = $1`;

// The blocking rule of merchants/logins.ts: 1 s, 2 s, 4 s ... up to 15 minutes; an hour without failures forgets.
const maxBlockSeconds = 900;
const forgetAfter = "interval '1 hour'";
const failuresNow = `case when f.last_failure_at < now() - ${forgetAfter} then 1 else f.failures + 1 end`;
const blockedUntil = (failures: string, free: string) =>
  `case when ${failures} > ${free}
     then now() + make_interval(secs => least(${maxBlockSeconds}, power(2, ${failures} - ${free} - 1))) end`;

const blockedFacts = `(select ceil(extract(epoch from max(f.blocked_until) - now()))::int from login_failure f
             where f.key = any($2::text[]) and f.blocked_until > now()) as blocked_seconds,
            (select f.failures from login_failure f where f.key = $2[1]) as username_failures`;

/** The merchant with username $1, and whether any of the keys $2 (the username at the address first) is blocked: one row. */
export const loginFactsOf = `select ${blockedFacts},
            m.id, m.password_hash, m.credentials_generation as generation
     from (select 1) one left join merchant m on m.username = $1`;

/**
 * The console's sign-in: as loginFactsOf, but a username of no merchant may be a console user's (0035), whose
 * merchant, id and permissions come with it. A merchant's username wins over a console user's.
 */
export const consoleLoginFactsOf = `select ${blockedFacts},
            coalesce(m.id, u.merchant_id) as id, coalesce(m.password_hash, u.password_hash) as password_hash,
            coalesce(m.credentials_generation, u.credentials_generation) as generation,
            case when m.id is null then u.id end as console_user_id,
            case when m.id is null then u.permissions end as permissions
     from (select 1) one left join merchant m on m.username = $1 left join console_user u on u.username = $1`;

/** Sets console user $1's password hash to $3 if it is still $2; answers its credentials generation. */
export const rehashedConsoleUserPassword = `update console_user set password_hash = $3 where id = $1 and password_hash = $2
     returning credentials_generation as generation`;

/**
 * Counts a failure against every key ($1, with their free failures $2), atomically per key, and removes a few
 * long-forgotten rows.
 */
export const countFailures = `with forgotten as (
       delete from login_failure where key in (
         select key from login_failure
         where last_failure_at < now() - ${forgetAfter} and key <> all($1::text[]) limit 20))
     insert into login_failure as f (key, failures, free_failures, last_failure_at, blocked_until)
     select k.key, 1, k.free, now(), ${blockedUntil('1', 'k.free')}
     from unnest($1::text[], $2::int[]) as k(key, free)
     on conflict (key) do update set
       failures = ${failuresNow},
       last_failure_at = now(),
       blocked_until = ${blockedUntil(`(${failuresNow})`, 'excluded.free_failures')}`;

/** Forgets the failures against a key. */
export const forgiveKey = 'delete from login_failure where key = $1';

/** Sets merchant $1's password hash to $3 if it is still $2; answers the generation the change moved to. */
export const rehashedPassword = `update merchant set password_hash = $3 where id = $1 and password_hash = $2
     returning credentials_generation as generation`;

/** The credentials generation of each merchant in $1 that exists. */
export const generationsOf =
  'select id, credentials_generation as generation from merchant where id = any($1::int[])';

/** Creates the merchant $1 with password hash $2, or sets an existing one's. */
export const upsertMerchantRow = `insert into merchant (username, password_hash) values ($1, $2)
     on conflict (username) do update set password_hash = excluded.password_hash returning id`;
