import type { EntityManager } from '@mikro-orm/postgresql';
import { type ConsolePermissions, credentialLimits } from '@paywire/contracts';
import { executeParameterized, executePrepared } from '../db/wire.ts';
import { consoleLoginFactsOf, countFailures, forgiveKey, loginFactsOf } from './queries.ts';

/**
 * Failed logins, counted per (username, client address) and per client address in one table every core
 * shares (0011). After a key's free failures, each further failure blocks it for twice as long as the last
 * (1 s, 2 s, 4 s ... up to 15 minutes); an hour without failures forgets them. A blocked attempt is answered
 * before any hash. Nothing is counted per username alone: guessing a merchant's password from other
 * addresses blocks those addresses, never the merchant's own login from an address that has not been
 * guessing.
 */
const limits = { usernameAtAddress: 5, address: 20 };

export interface LoginKey {
  key: string;
  freeFailures: number;
}

/** The key of a username's failures from one address. */
const usernameAtAddressKey = (username: string, address: string | undefined) =>
  `login:${address ?? ''}:${username}`;

/**
 * The keys an attempt counts against: its username at its client address first, unless no merchant could
 * have the username (too long, or with NUL, which PostgreSQL cannot store), then the client address. A
 * caller that names no address (an internal service) shares the empty one.
 */
export function loginKeys(username: string, clientAddress: string | undefined): LoginKey[] {
  const address = clientAddress?.includes('\u0000') ? undefined : clientAddress;
  const keys: LoginKey[] = [];
  if (username.length <= credentialLimits.username && !username.includes('\u0000')) {
    keys.push({ key: usernameAtAddressKey(username, address), freeFailures: limits.usernameAtAddress });
  }
  if (address) keys.push({ key: `address:${address}`, freeFailures: limits.address });
  return keys;
}

/** What a login needs before it hashes: the merchant, and whether its keys are blocked. One round trip. */
export interface LoginFacts {
  blocked_seconds: number | null;
  username_failures: number | null;
  id: number | null;
  password_hash: string | null;
  generation: string | null;
  /** The console's sign-in only: set when the username is a console user's. */
  console_user_id?: string | null;
  permissions?: ConsolePermissions | null;
}

/** For a usable username, whose key comes first; the console's sign-in also finds console users. */
export async function loginFacts(
  em: EntityManager,
  username: string,
  keys: LoginKey[],
  console = false,
): Promise<LoginFacts> {
  const [facts] = await executePrepared<LoginFacts>(em, console ? consoleLoginFactsOf : loginFactsOf, [
    username,
    keys.map((key) => key.key),
  ]);
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

/**
 * The merchant proved its password: its username's failures from that address are forgiven (the
 * address's own are not: it may be guessing other usernames).
 */
export async function forgiveUsernameAtAddress(
  em: EntityManager,
  username: string,
  clientAddress: string | undefined,
): Promise<void> {
  const [usernameAtAddress] = loginKeys(username, clientAddress);
  if (usernameAtAddress) await executeParameterized(em, forgiveKey, [usernameAtAddress.key]);
}
