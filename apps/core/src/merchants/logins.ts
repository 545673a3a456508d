import type { EntityManager } from '@mikro-orm/postgresql';
import { credentialLimits } from '@paywire/contracts';
import { executeParameterized, executePrepared } from '../db/wire.ts';

/**
 * Failed logins, counted per username and per client address in one table every core shares (0011). After
 * a key's free failures, each further failure blocks it for twice as long as the last (1 s, 2 s, 4 s ...
 * up to 15 minutes); an hour without failures forgets them. A blocked attempt is answered before any hash.
 */
const limits = { username: 5, address: 20 };
const maxBlockSeconds = 900;
const forgetAfter = "interval '1 hour'";

export interface LoginKey {
  key: string;
  freeFailures: number;
}

/**
 * The keys an attempt counts against: its username first, unless no merchant could have it (too long, or
 * with NUL, which PostgreSQL cannot store), then its client address when the caller said which.
 */
export function loginKeys(username: string, clientAddress: string | undefined): LoginKey[] {
  const keys: LoginKey[] = [];
  if (username.length <= credentialLimits.username && !username.includes('\u0000')) {
    keys.push({ key: `username:${username}`, freeFailures: limits.username });
  }
  if (clientAddress && !clientAddress.includes('\u0000')) {
    keys.push({ key: `address:${clientAddress}`, freeFailures: limits.address });
  }
  return keys;
}

/** What a login needs before it hashes: the merchant, and whether its keys are blocked. One round trip. */
export interface LoginFacts {
  blocked_seconds: number | null;
  username_failures: number | null;
  id: number | null;
  password_hash: string | null;
  generation: string | null;
}

/** For a usable username, whose key comes first. */
export async function loginFacts(em: EntityManager, username: string, keys: LoginKey[]): Promise<LoginFacts> {
  const [facts] = await executePrepared<LoginFacts>(
    em,
    `select (select ceil(extract(epoch from max(f.blocked_until) - now()))::int from login_failure f
             where f.key = any($2::text[]) and f.blocked_until > now()) as blocked_seconds,
            (select f.failures from login_failure f where f.key = $2[1]) as username_failures,
            m.id, m.password_hash, m.credentials_generation as generation
     from (select 1) one left join merchant m on m.username = $1`,
    [username, keys.map((key) => key.key)],
  );
  if (!facts) throw new Error('login facts returned no row');
  return facts;
}

const failuresNow = `case when f.last_failure_at < now() - ${forgetAfter} then 1 else f.failures + 1 end`;
const blockedUntil = (failures: string, free: string) =>
  `case when ${failures} > ${free}
     then now() + make_interval(secs => least(${maxBlockSeconds}, power(2, ${failures} - ${free} - 1))) end`;

/**
 * Counts a failure against every key, atomically per key (the row's own lock), in one statement that also
 * removes a few long-forgotten rows so the table stays small.
 */
export async function recordFailure(em: EntityManager, keys: LoginKey[]): Promise<void> {
  if (keys.length === 0) return;
  await executeParameterized(
    em,
    `with forgotten as (
       delete from login_failure where key in (
         select key from login_failure
         where last_failure_at < now() - ${forgetAfter} and key <> all($1::text[]) limit 20))
     insert into login_failure as f (key, failures, free_failures, last_failure_at, blocked_until)
     select k.key, 1, k.free, now(), ${blockedUntil('1', 'k.free')}
     from unnest($1::text[], $2::int[]) as k(key, free)
     on conflict (key) do update set
       failures = ${failuresNow},
       last_failure_at = now(),
       blocked_until = ${blockedUntil(`(${failuresNow})`, 'excluded.free_failures')}`,
    [keys.map((key) => key.key), keys.map((key) => key.freeFailures)],
  );
}

/** The merchant proved its password: failures against its username are forgiven (its address's are not). */
export async function forgiveUsername(em: EntityManager, username: string): Promise<void> {
  await executeParameterized(em, 'delete from login_failure where key = $1', [`username:${username}`]);
}
