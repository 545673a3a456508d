import type { EntityManager } from '@mikro-orm/postgresql';
import { type LoginVerdict, usableCredentials } from '@paywire/contracts';
import { executeParameterized, executePrepared } from '../db/wire.ts';
import { HashingBusy, type PasswordGate } from '../security/password-gate.ts';
import { hashPassword, verifyPassword } from '../security/passwords.ts';
import { forgiveUsername, loginFacts, loginKeys, recordFailure } from './logins.ts';
import { generationsOf, upsertMerchantRow } from './queries.ts';

export interface LoginAttempt {
  username: string;
  password: string;
  clientAddress?: string | undefined;
}

/**
 * Checks a merchant's credentials. Blocked keys are answered before any hash; the slow hash waits its turn
 * at the gate (callers cache accepted verdicts). An unknown username costs the same hash as a known one, so
 * timing does not reveal which usernames exist; only when the gate is overloaded is an unknown username's
 * attempt refused without its hash, the price of keeping real merchants' logins fast during guessing.
 */
export async function authenticate(
  ctx: { em: EntityManager; passwords: PasswordGate },
  { username, password, clientAddress }: LoginAttempt,
): Promise<LoginVerdict> {
  const keys = loginKeys(username, clientAddress);
  if (!usableCredentials(username, password)) {
    await recordFailure(ctx.em, keys);
    return { outcome: 'refused' };
  }
  const facts = await loginFacts(ctx.em, username, keys);
  if (facts.blocked_seconds !== null) return { outcome: 'limited', retryAfterSeconds: facts.blocked_seconds };
  let verified: boolean;
  try {
    const { password_hash: hash } = facts;
    verified = await ctx.passwords.run(
      clientAddress ?? `username:${username}`,
      async () => {
        if (hash !== null) return verifyPassword(password, hash);
        await hashPassword(password); // the same cost as a known username's
        return false;
      },
      // An unknown username's hash only hides that it is unknown: it yields to real merchants' hashes.
      { deferrable: hash === null },
    );
  } catch (error) {
    if (!(error instanceof HashingBusy)) throw error;
    // Shed: a real merchant's login is asked to retry; an unknown username's is simply refused.
    if (facts.password_hash !== null) return { outcome: 'limited', retryAfterSeconds: 1 };
    verified = false;
  }
  if (!verified || facts.id === null) {
    await recordFailure(ctx.em, keys);
    return { outcome: 'refused' };
  }
  if (facts.username_failures !== null) await forgiveUsername(ctx.em, username);
  return { outcome: 'accepted', merchantId: facts.id, generation: Number(facts.generation) };
}

/** The current credentials generation of each merchant asked about that exists: one cheap query. */
export async function credentialGenerations(
  em: EntityManager,
  merchantIds: number[],
): Promise<{ merchantId: number; generation: number }[]> {
  const rows = await executePrepared<{ id: number; generation: string }>(em, generationsOf, [merchantIds]);
  return rows.map((row) => ({ merchantId: row.id, generation: Number(row.generation) }));
}

/**
 * Creates the merchant, or sets the password of an existing one: the operator's credentials win. A new
 * password moves the merchant's credentials generation (0011's trigger), which ends cached verdicts.
 */
export async function upsertMerchant(em: EntityManager, username: string, password: string): Promise<number> {
  if (!usableCredentials(username, password)) {
    throw new Error('a username of 1-100 and a password of 1-200 characters, without NUL, are required');
  }
  const passwordHash = await hashPassword(password);
  const rows = await executeParameterized<{ id: number }>(em, upsertMerchantRow, [username, passwordHash]);
  const id = rows[0]?.id;
  if (id === undefined) throw new Error('merchant upsert returned no id');
  return id;
}
