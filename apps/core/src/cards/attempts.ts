import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized, executePrepared } from '../db/wire.ts';

export type AttemptKind = 'AUTHORIZE' | 'CAPTURE' | 'REVERSE' | 'REFUND';

/**
 * Writes a payment attempt, to be committed before the acquirer is called: its reference is the acquirer's
 * idempotency key, and an attempt left unresolved is the recovery worker's to settle (cards/recovery.ts).
 */
export async function openAttempt(
  em: EntityManager,
  attempt: {
    merchantId: number;
    kind: AttemptKind;
    amountMinor: number;
    idempotencyKey?: string | undefined;
    transactionId?: number | undefined;
    /** A reference the caller derived (a subscription charge's), else a random one. */
    reference?: string | undefined;
  },
): Promise<string> {
  const reference = attempt.reference ?? randomUUID();
  await executePrepared(
    em,
    `insert into payment_attempt (reference, merchant_id, kind, state, idempotency_key, transaction_id, amount_minor)
     values ($1, $2, $3, 'PENDING', $4, $5, $6)`,
    [
      reference,
      attempt.merchantId,
      attempt.kind,
      attempt.idempotencyKey ?? null,
      attempt.transactionId ?? null,
      attempt.amountMinor,
    ],
  );
  return reference;
}

/**
 * Settles a pending attempt; false when it is no longer pending (the recovery worker took it over to void
 * it), in which case the caller's transaction must not commit the outcome.
 */
export async function settleAttempt(
  em: EntityManager,
  reference: string,
  state: 'DONE' | 'DECLINED',
  transactionId?: number,
): Promise<boolean> {
  const rows = await executePrepared<{ id: string }>(
    em,
    `update payment_attempt set state = $2, transaction_id = coalesce($3, transaction_id), resolved_at = now()
     where reference = $1 and state = 'PENDING' returning id`,
    [reference, state, transactionId ?? null],
  );
  return rows.length === 1;
}

/** The outcome the caller could not commit: the approval no Paywire transaction stands for. */
export class AttemptTakenOver extends Error {
  constructor() {
    super('the payment attempt was resolved by recovery before its outcome was written');
  }
}

/**
 * Voids an authorization that no Paywire transaction will stand for: the attempt is taken to VOIDING
 * (committed; from then on no late outcome can be written for it, settleAttempt refuses), the acquirer's
 * authorization found (`authorization`: known to the caller, or an inquiry) and reversed by the attempt's
 * reference, which the acquirer does at most once, then VOIDED. A keyed call's in-flight record goes with
 * it: the key is free for a retry, which authorizes afresh. Nothing happens to an attempt already settled.
 */
export async function voidAttempt(
  ctx: Pick<MerchantContext, 'acquirer' | 'em'>,
  reference: string,
  authorization: () => Promise<string | null>,
): Promise<void> {
  const taken = await executeParameterized(
    ctx.em,
    `update payment_attempt set state = 'VOIDING' where reference = $1 and state in ('PENDING', 'VOIDING')
     returning id`,
    [reference],
  );
  if (taken.length === 0) return;
  const networkTransactionId = await authorization();
  if (networkTransactionId !== null) await ctx.acquirer.reverse(networkTransactionId, reference);
  await inTransaction(ctx.em, async (em) => {
    const [attempt] = await executeParameterized<{ merchant_id: number; idempotency_key: string | null }>(
      em,
      `update payment_attempt set state = 'VOIDED', resolved_at = now()
       where reference = $1 and state = 'VOIDING' returning merchant_id, idempotency_key`,
      [reference],
    );
    if (attempt?.idempotency_key) await freeKey(em, attempt.merchant_id, attempt.idempotency_key);
  });
}

/** A keyed call whose attempt was resolved without an answer: its retry runs afresh. */
export async function freeKey(em: EntityManager, merchantId: number, key: string): Promise<void> {
  await executeParameterized(
    em,
    'delete from idempotency_record where merchant_id = $1 and key = $2 and outcome is null',
    [merchantId, key],
  );
}
