import type { EntityManager } from '@mikro-orm/postgresql';
import { credentialLimits } from '@paywire/contracts';
import { executeParameterized, executePrepared } from '../db/wire.ts';
import { countFailures, forgiveKey, loginFactsOf } from './queries.ts';

/**
 * Failed logins, counted per username and per client address in one table every core shares (0011). After
 * a key's free failures, each further failure blocks it for twice as long as the last (1 s, 2 s, 4 s ...
 * up to 15 minutes); an hour without failures forgets them. A blocked attempt is answered before any hash.
 */
const limits = { username: 5, address: 20 };

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
  const [facts] = await executePrepared<LoginFacts>(em, loginFactsOf, [username, keys.map((key) => key.key)]);
  if (!facts) throw new Error('login facts returned no row');
  return facts;
}

/**
 * Counts a failure against every key, atomically per key (the row's own lock), in one statement that also
 * removes a few long-forgotten rows so the table stays small.
 */
export async function recordFailure(em: EntityManager, keys: LoginKey[]): Promise<void> {
  if (keys.length === 0) return;
  await executeParameterized(em, countFailures, [
    keys.map((key) => key.key),
    keys.map((key) => key.freeFailures),
  ]);
}

/** The merchant proved its password: failures against its username are forgiven (its address's are not). */
export async function forgiveUsername(em: EntityManager, username: string): Promise<void> {
  await executeParameterized(em, forgiveKey, [`username:${username}`]);
}
