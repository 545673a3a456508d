import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditAction, AuditActorKind, AuditOutcome } from '@paywire/contracts';
import { inTransaction } from '../../db/transaction.ts';
import { sendWithNext } from '../../db/wire.ts';
import { insertAuditEvent } from './queries.ts';

/** Who made a change, and from where. */
export interface AuditOrigin {
  actorKind: AuditActorKind;
  actor: string;
  clientAddress: string | null;
  requestId: string | null;
}

export interface AuditEntry {
  /** Whose event it is (the merchant reads its own); null for one of no merchant (an unknown username). */
  merchantId: number | null;
  action: AuditAction;
  object: string | null;
  outcome: AuditOutcome;
}

/** An operator at a CLI: the operating system's user name is all we know of them. */
export const operatorOrigin = (name: string): AuditOrigin => ({
  actorKind: 'operator',
  actor: name,
  clientAddress: null,
  requestId: null,
});

/**
 * Appends one event to its merchant's chain, in the transaction of the change it records: both commit or
 * neither does. It travels with the transaction's next statement (nothing waits for it), and the insert
 * trigger waits for the chain's head, which later writers of the same chain then wait for until commit.
 */
export async function recordAudit(em: EntityManager, origin: AuditOrigin, entry: AuditEntry): Promise<void> {
  await sendWithNext(em, insertAuditEvent, [
    entry.merchantId,
    origin.actorKind,
    origin.actor,
    origin.clientAddress,
    origin.requestId,
    entry.action,
    entry.object,
    entry.outcome,
  ]);
}

/**
 * The origin of a call to core. The facade names the merchant's client address on the calls it makes for a
 * merchant's Basic login: the merchant is then the actor. An admin credential is an operator's (the operator
 * CLIs call with one, docs/security.md): its calls are the operator's, named by the credential. Any other
 * call's actor is its caller credential.
 */
export function callOrigin(
  caller: { credentialId: number; name: string; scope: string },
  merchantId: number | null,
  clientAddress: string | undefined,
  requestId: string | undefined,
): AuditOrigin {
  const merchantLogin = clientAddress !== undefined && merchantId !== null && caller.scope === 'any-merchant';
  return {
    actorKind: merchantLogin ? 'merchant' : caller.scope === 'admin' ? 'operator' : 'caller',
    actor: merchantLogin ? String(merchantId) : `${caller.name} (pwc_${caller.credentialId})`,
    clientAddress: merchantLogin ? clientAddress : null,
    requestId: requestId ?? null,
  };
}

/** Runs a change and appends its event in one transaction (the caller's, when it has one). */
export function audited<T>(
  ctx: { em: EntityManager; origin: AuditOrigin },
  entry: AuditEntry,
  change: (em: EntityManager) => Promise<T>,
): Promise<T> {
  return inTransaction(ctx.em, async (em) => {
    const result = await change(em);
    await recordAudit(em, ctx.origin, entry);
    return result;
  });
}

/** Whoever a change without a call is made by: core itself. */
export const coreOrigin: AuditOrigin = {
  actorKind: 'system',
  actor: 'core',
  clientAddress: null,
  requestId: null,
};

/** Appends the event of a change a call (or, with none, core itself) made, in the transaction that makes it. */
export function recordChange(
  ctx: { origin?: AuditOrigin | undefined; merchantId: number },
  em: EntityManager,
  action: AuditAction,
  object: string,
): Promise<void> {
  return recordAudit(em, ctx.origin ?? coreOrigin, {
    merchantId: ctx.merchantId,
    action,
    object,
    outcome: 'success',
  });
}

/** Appends the event of a capture, reversal or refund of a payment, in the transaction that records it. */
export function recordPaymentChange(
  ctx: { origin?: AuditOrigin | undefined; merchantId: number },
  em: EntityManager,
  action: 'capture' | 'reversal' | 'refund' | 'refund.cancel',
  paymentId: number,
): Promise<void> {
  return recordChange(ctx, em, action, `transaction:${paymentId}`);
}

declare module '../../context.ts' {
  interface CallContext {
    /** Who made the call and from where, for the audit trail (a worker's job has none). */
    origin?: AuditOrigin;
  }
  interface RequestContext {
    origin: AuditOrigin;
  }
}
