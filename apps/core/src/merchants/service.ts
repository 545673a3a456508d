import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type AuditOutcome,
  type ConsolePermissions,
  type LoginVerdict,
  minimumPasswordLength,
  settablePassword,
  usableCredentials,
} from '@paywire/contracts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized, executePrepared } from '../db/wire.ts';
import { type AuditEntry, type AuditOrigin, recordAudit } from '../security/audit/trail.ts';
import { HashingBusy, type PasswordGate } from '../security/password-gate.ts';
import {
  hashPassword,
  type PasswordCheck,
  productionCost,
  type ScryptCost,
  verifyPassword,
} from '../security/passwords.ts';
import { forgiveUsernameAtAddress, loginFacts, loginKeys, recordFailure } from './logins.ts';
import {
  generationsOf,
  rehashedConsoleUserPassword,
  rehashedPassword,
  upsertMerchantRow,
} from './queries.ts';

export interface LoginAttempt {
  username: string;
  password: string;
  clientAddress?: string | undefined;
}

/**
 * Checks a merchant's credentials. Blocked keys are answered before any hash; the slow hash waits its turn
 * at the gate (callers cache accepted verdicts). An unknown username costs the same hash as a known one, so
 * timing does not reveal which usernames exist; only when the gate is overloaded is an unknown username's
 * attempt refused without its hash, the price of keeping real merchants' logins fast during guessing. A
 * password stored at less than today's cost is hashed again once it has been proved. Every checked attempt
 * leaves one audit event (a limited one is not checked), in the transaction that counts or forgives it.
 */
/** An accepted console sign-in names the console user it was, if a console user's (partners/). */
export type ConsoleLoginVerdict =
  | Exclude<LoginVerdict, { outcome: 'accepted' }>
  | (Extract<LoginVerdict, { outcome: 'accepted' }> & {
      consoleUser: { id: number; permissions: ConsolePermissions } | null;
    });

/**
 * `console`: the console's sign-in, which also takes console users' credentials (never HTTP Basic: a console
 * user has no API access).
 */
export async function authenticate(
  ctx: {
    em: EntityManager;
    passwords: PasswordGate;
    passwordCost: ScryptCost;
    requestId?: string | undefined;
  },
  { username, password, clientAddress }: LoginAttempt,
  console = false,
): Promise<ConsoleLoginVerdict> {
  const keys = loginKeys(username, clientAddress);
  const loginOrigin = (merchantId: number | null): AuditOrigin => ({
    actorKind: 'merchant',
    actor: merchantId === null ? 'unknown' : String(merchantId),
    clientAddress: clientAddress ?? null,
    requestId: ctx.requestId ?? null,
  });
  const refuse = (merchantId: number | null) =>
    inTransaction(ctx.em, async (em) => {
      await recordFailure(em, keys);
      await recordAudit(em, loginOrigin(merchantId), loginEntry(merchantId, 'failure'));
      return { outcome: 'refused' } as const;
    });
  if (!usableCredentials(username, password)) return refuse(null);
  const facts = await loginFacts(ctx.em, username, keys, console);
  const consoleUserId = facts.console_user_id == null ? null : Number(facts.console_user_id);
  if (facts.blocked_seconds !== null) return { outcome: 'limited', retryAfterSeconds: facts.blocked_seconds };
  const lane = clientAddress ?? `username:${username}`;
  const { password_hash: hash } = facts;
  let check: PasswordCheck;
  try {
    check = await ctx.passwords.run(
      lane,
      async () => {
        if (hash !== null) return verifyPassword(password, hash, ctx.passwordCost);
        await hashPassword(password, ctx.passwordCost); // the same cost as a known username's
        return { verified: false, needsRehash: false };
      },
      // An unknown username's hash only hides that it is unknown: it yields to real merchants' hashes.
      { deferrable: hash === null },
    );
  } catch (error) {
    if (!(error instanceof HashingBusy)) throw error;
    // Shed: a real merchant's login is asked to retry; an unknown username's is simply refused.
    if (hash !== null) return { outcome: 'limited', retryAfterSeconds: 1 };
    check = { verified: false, needsRehash: false };
  }
  const merchantId = facts.id;
  if (!check.verified || merchantId === null || hash === null) return refuse(merchantId);
  const stronger = check.needsRehash
    ? await ctx.passwords.run(lane, () => hashPassword(password, ctx.passwordCost))
    : null;
  return inTransaction(ctx.em, async (em) => {
    if (facts.username_failures !== null) await forgiveUsernameAtAddress(em, username, clientAddress);
    let generation = Number(facts.generation);
    if (stronger !== null) {
      // Only if the hash is still the one just proved: a password changed meanwhile wins.
      const [row] = await executeParameterized<{ generation: string }>(
        em,
        consoleUserId === null ? rehashedPassword : rehashedConsoleUserPassword,
        [consoleUserId ?? merchantId, hash, stronger],
      );
      if (row) generation = Number(row.generation); // the new hash moved it (0011's trigger)
    }
    const entry = loginEntry(merchantId, 'success');
    await recordAudit(
      em,
      loginOrigin(merchantId),
      consoleUserId === null ? entry : { ...entry, object: `console-user:${consoleUserId}` },
    );
    const consoleUser =
      consoleUserId === null
        ? null
        : { id: consoleUserId, permissions: facts.permissions as ConsolePermissions };
    return { outcome: 'accepted', merchantId, generation, consoleUser } as const;
  });
}

/** A login's event: on the merchant's chain when the username is one's, else on the chain of no merchant. */
const loginEntry = (merchantId: number | null, outcome: AuditOutcome): AuditEntry => ({
  merchantId,
  action: 'login',
  object: merchantId === null ? null : `merchant:${merchantId}`,
  outcome,
});

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
 * password moves the merchant's credentials generation (0011's trigger), which ends cached verdicts, and
 * leaves an audit event in the same transaction.
 */
export async function upsertMerchant(
  em: EntityManager,
  username: string,
  password: string,
  origin: AuditOrigin,
  cost: ScryptCost = productionCost,
): Promise<number> {
  if (!settablePassword(username, password)) {
    throw new Error(
      `a username of 1-100 and a password of ${minimumPasswordLength}-200 characters, without NUL, are required`,
    );
  }
  const passwordHash = await hashPassword(password, cost);
  return inTransaction(em, async (em) => {
    const [row] = await executeParameterized<{ id: number }>(em, upsertMerchantRow, [username, passwordHash]);
    if (!row) throw new Error('merchant upsert returned no id');
    await recordAudit(em, origin, {
      merchantId: row.id,
      action: 'password.set',
      object: `merchant:${row.id}`,
      outcome: 'success',
    });
    return row.id;
  });
}
