import { createHash, randomBytes } from 'node:crypto';
import type { ConsolePermissions, ConsoleSession, ConsoleSignIn } from '@paywire/contracts';
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
 * Signs in to the console with the merchant's credentials or a console user's (partners/): the same check,
 * limits and audit event as an HTTP Basic login (merchants/service.ts), then a new session whose token only
 * the cookie holds, naming the console user whose permissions bound it.
 */
export async function signIn(ctx: RequestContext, attempt: LoginAttempt): Promise<ConsoleSignIn> {
  const verdict = await authenticate(ctx, attempt, true);
  if (verdict.outcome !== 'accepted') return verdict;
  const token = randomBytes(32).toString('base64url');
  const { consoleUser } = verdict;
  await executeParameterized(ctx.em, insertSession, [
    tokenHash(token),
    verdict.merchantId,
    verdict.generation,
    consoleUser?.id ?? null,
  ]);
  return {
    outcome: 'opened',
    merchantId: verdict.merchantId,
    token,
    permissions: consoleUser?.permissions ?? null,
  };
}

/** The session's merchant, its idle time restarted; null when there is no live session for the token. */
export async function resume(ctx: RequestContext, token: string): Promise<ConsoleSession | null> {
  const [row] = await executePrepared<{
    merchant_id: number;
    username: string;
    permissions: ConsolePermissions | null;
  }>(ctx.em, touchSession, [tokenHash(token), consoleIdleSeconds, consoleLifetimeSeconds]);
  return row ? { merchantId: row.merchant_id, username: row.username, permissions: row.permissions } : null;
}

export async function signOut(ctx: RequestContext, token: string): Promise<void> {
  await executeParameterized(ctx.em, endSession, [tokenHash(token)]);
}
