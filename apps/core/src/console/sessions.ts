import { createHash, randomBytes } from 'node:crypto';
import type { ConsoleSession, ConsoleSignIn } from '@paywire/contracts';
import type { RequestContext } from '../context.ts';
import { executeParameterized, executePrepared } from '../db/wire.ts';
import { authenticate, type LoginAttempt } from '../merchants/service.ts';
import { endSession, insertSession, touchSession } from './queries.ts';

/** A session ends after this long without a request (see docs/console.md, Sessions)... */
export const consoleIdleSeconds = 30 * 60;
/** ...and this long after sign-in, however busy. */
export const consoleLifetimeSeconds = 12 * 60 * 60;

const tokenHash = (token: string) => createHash('sha256').update(token).digest();

/**
 * Signs in to the console with the merchant's credentials: the same check, limits and audit event as an
 * HTTP Basic login (merchants/service.ts), then a new session whose token only the cookie holds.
 */
export async function signIn(ctx: RequestContext, attempt: LoginAttempt): Promise<ConsoleSignIn> {
  const verdict = await authenticate(ctx, attempt);
  if (verdict.outcome !== 'accepted') return verdict;
  const token = randomBytes(32).toString('base64url');
  await executeParameterized(ctx.em, insertSession, [
    tokenHash(token),
    verdict.merchantId,
    verdict.generation,
  ]);
  return { outcome: 'opened', merchantId: verdict.merchantId, token };
}

/** The session's merchant, its idle time restarted; null when there is no live session for the token. */
export async function resume(ctx: RequestContext, token: string): Promise<ConsoleSession | null> {
  const [row] = await executePrepared<{ merchant_id: number; username: string }>(ctx.em, touchSession, [
    tokenHash(token),
    consoleIdleSeconds,
    consoleLifetimeSeconds,
  ]);
  return row ? { merchantId: row.merchant_id, username: row.username } : null;
}

export async function signOut(ctx: RequestContext, token: string): Promise<void> {
  await executeParameterized(ctx.em, endSession, [tokenHash(token)]);
}
