import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized, executePrepared } from '../db/wire.ts';
import type { Processor } from '../processors/processor.ts';
import {
  freeKeyInFlight,
  insertAttempt,
  markVoided,
  moveAttempt,
  settlePendingAttempt,
  takeForVoiding,
} from './queries.ts';

export type AttemptKind = 'AUTHORIZE' | 'CAPTURE' | 'REVERSE' | 'REFUND';

/** One attempt to be written: what the processor is asked, under which key, on which account. */
export interface AttemptRow {
  merchantId: number;
  kind: AttemptKind;
  amountMinor: number;
  currency: string;
  /** The processor account it goes to; null: the built-in sandbox account. */
  accountId: number | null;
  idempotencyKey?: string | undefined;
  transactionId?: number | undefined;
  /** A reference the caller derived (a subscription charge's), else a random one. */
  reference?: string | undefined;
}

/**
 * Writes a payment attempt, to be committed before the processor is called: its reference is the processor's
 * idempotency key, and an attempt left unresolved is the recovery worker's to settle (payments/recovery.ts).
 */
export async function openAttempt(em: EntityManager, attempt: AttemptRow): Promise<string> {
  const reference = attempt.reference ?? randomUUID();
  await executePrepared(em, insertAttempt, [
    reference,
    attempt.merchantId,
    attempt.kind,
    attempt.idempotencyKey ?? null,
    attempt.transactionId ?? null,
    attempt.amountMinor,
    attempt.currency,
    attempt.accountId,
  ]);
  return reference;
}

/** A pending authorization fails over: the next account is written before it is asked, so recovery asks it. */
export async function moveAttemptTo(
  em: EntityManager,
  reference: string,
  accountId: number | null,
): Promise<void> {
  await executePrepared(em, moveAttempt, [reference, accountId]);
}

/**
 * Settles a pending attempt; false when it is no longer pending (the recovery worker took it over to void
 * it), in which case the caller's transaction must not commit the outcome.
 */
export async function settleAttempt(
  em: EntityManager,
  reference: string,
  state: 'DONE' | 'AWAITING' | 'DECLINED',
  transactionId?: number,
): Promise<boolean> {
  const rows = await executePrepared<{ id: string }>(em, settlePendingAttempt, [
    reference,
    state,
    transactionId ?? null,
  ]);
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
 * (committed; from then on no late outcome can be written for it, settleAttempt refuses), the processor's
 * authorization found (`authorization`: its processor reference, known to the caller or from an inquiry;
 * 'unknown' when the processor cannot tell) and cancelled by the attempt's reference, which the processor
 * does at most once (a technical cancel when the authorization is unknown), then VOIDED. A keyed call's
 * in-flight record goes with it: the key is free for a retry, which authorizes afresh. Nothing happens to
 * an attempt already settled.
 */
export async function voidAttempt(
  em: EntityManager,
  processor: Processor,
  attempt: { reference: string; amountMinor: number; currency: string },
  authorization: () => Promise<string | 'unseen' | 'unknown'>,
): Promise<void> {
  const { reference } = attempt;
  const taken = await executeParameterized(em, takeForVoiding, [reference]);
  if (taken.length === 0) return;
  const found = await authorization();
  if (found === 'unknown') await processor.technicalCancel(reference);
  else if (found !== 'unseen') await processor.cancel({ ...attempt, processorReference: found });
  await markAttemptVoided(em, reference);
}

/**
 * An authorization attempt nothing stands for (no account reached, or what one did was cancelled): VOIDED at
 * once, its key free for a retry.
 */
export async function abandonAttempt(em: EntityManager, reference: string): Promise<void> {
  if ((await executeParameterized(em, takeForVoiding, [reference])).length > 0)
    await markAttemptVoided(em, reference);
}

async function markAttemptVoided(em: EntityManager, reference: string): Promise<void> {
  await inTransaction(em, async (em) => {
    const [voided] = await executeParameterized<{ merchant_id: number; idempotency_key: string | null }>(
      em,
      markVoided,
      [reference],
    );
    if (voided?.idempotency_key) await freeKey(em, voided.merchant_id, voided.idempotency_key);
  });
}

/** A keyed call whose attempt was resolved without an answer: its retry runs afresh. */
export async function freeKey(em: EntityManager, merchantId: number, key: string): Promise<void> {
  await executeParameterized(em, freeKeyInFlight, [merchantId, key]);
}
