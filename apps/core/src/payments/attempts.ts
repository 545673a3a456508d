import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized, executePrepared } from '../db/wire.ts';
import type { Processor } from '../processors/processor.ts';
import {
  freeKeyInFlight,
  insertAttempt,
  insertSaleAttempt,
  markVoided,
  moveAttempt,
  settlePendingAttempt,
  takeForVoiding,
} from './queries.ts';

/** RECALL: pending refunds of a transaction withdrawn from the processor before it did them. */
export type AttemptKind = 'AUTHORIZE' | 'CAPTURE' | 'REVERSE' | 'REFUND' | 'RECALL';

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

/** What a sale's attempt reserved for it: its reference, the sale's id, and a new shopper's. */
export interface SaleReservation {
  reference: string;
  transactionId: number;
  /** For a new shopper; a known one keeps its own. */
  shopperId: number | null;
}

const attemptParameters = (reference: string, attempt: AttemptRow) => [
  reference,
  attempt.merchantId,
  attempt.kind,
  attempt.idempotencyKey ?? null,
  attempt.transactionId ?? null,
  attempt.amountMinor,
  attempt.currency,
  attempt.accountId,
];

/**
 * Writes a payment attempt, to be committed before the processor is called: its reference is the processor's
 * idempotency key, and an attempt left unresolved is the recovery worker's to settle (payments/recovery.ts).
 */
export async function openAttempt(em: EntityManager, attempt: AttemptRow): Promise<string> {
  const reference = attempt.reference ?? randomUUID();
  await executePrepared(em, insertAttempt, attemptParameters(reference, attempt));
  return reference;
}

/**
 * A sale's attempt (openAttempt), with the ids its sale is written under: the sale's, and a new shopper's
 * when it makes one (cards/sale-writer.ts). Routed with facts of a known version (`factsVersion`), it is written
 * only while they are still the merchant's: null when they have moved on, and nothing was written.
 */
export async function openSaleAttempt(
  em: EntityManager,
  attempt: Omit<AttemptRow, 'kind'>,
  newShopper: boolean,
  factsVersion: string | null,
): Promise<SaleReservation | null> {
  const reference = attempt.reference ?? randomUUID();
  const [row] = await executePrepared<{ transaction_id: string; shopper_id: string | null }>(
    em,
    insertSaleAttempt,
    [...attemptParameters(reference, { ...attempt, kind: 'AUTHORIZE' }), newShopper, factsVersion],
  );
  if (!row) return null;
  return {
    reference,
    transactionId: Number(row.transaction_id),
    shopperId: row.shopper_id === null ? null : Number(row.shopper_id),
  };
}

/**
 * A pending authorization fails over: the next account is written before it is asked, so recovery asks it,
 * and its call is dated afresh, so recovery leaves it alone as long as a first call. False when recovery took
 * the attempt meanwhile: it must not be carried on.
 */
export async function moveAttemptTo(
  em: EntityManager,
  reference: string,
  accountId: number | null,
): Promise<boolean> {
  return (await executePrepared(em, moveAttempt, [reference, accountId])).length === 1;
}

/**
 * Settles a pending attempt; false when it is no longer pending (the recovery worker took it over to void
 * it), in which case the caller's transaction must not commit the outcome.
 */
export async function settleAttempt(
  em: EntityManager,
  reference: string,
  state: 'DONE' | 'AWAITING' | 'DECLINED',
  made: { transactionId?: number; processorReference?: string | undefined; declineReason?: string } = {},
): Promise<boolean> {
  const rows = await executePrepared<{ id: string }>(em, settlePendingAttempt, [
    reference,
    state,
    made.transactionId ?? null,
    made.processorReference ?? null,
    made.declineReason ?? null,
  ]);
  return rows.length === 1;
}

/** The outcome the caller could not commit: the approval no Paywire transaction stands for. */
export class AttemptTakenOver extends Error {
  constructor() {
    super('the payment attempt was resolved by recovery before its outcome was written');
  }
}

/** What an attempt's authorization is known by: its processor reference, or unseen, or unknown. */
export type FoundAuthorization = string | 'unseen' | 'unknown';

interface AttemptMoney {
  reference: string;
  amountMinor: number;
  currency: string;
}

/**
 * Undoes at the processor what it did under the attempt: an authorization (or a sale captured with it) is
 * voided under a reference of its own (a processor keeps one answer per idempotency key, and the attempt's
 * is the authorization's); an unknown outcome is technically cancelled by the attempt's reference.
 */
async function undo(processor: Processor, attempt: AttemptMoney, found: FoundAuthorization): Promise<void> {
  if (found === 'unseen') return;
  if (found === 'unknown') {
    await processor.technicalCancel(attempt.reference);
    return;
  }
  await processor.cancel({ ...attempt, reference: `${attempt.reference}-void`, processorReference: found });
}

/**
 * Voids an authorization that no Paywire transaction will stand for: the attempt is taken to VOIDING
 * (committed; from then on no late outcome can be written for it, settleAttempt refuses), the processor's
 * authorization found (`authorization`: an inquiry) and undone, then VOIDED. A keyed call's in-flight
 * record goes with it: the key is free for a retry, which authorizes afresh. Nothing happens to an attempt
 * already settled.
 */
export async function voidAttempt(
  em: EntityManager,
  processor: Processor,
  attempt: AttemptMoney,
  authorization: () => Promise<FoundAuthorization>,
): Promise<void> {
  const taken = await executeParameterized(em, takeForVoiding, [attempt.reference]);
  if (taken.length === 0) return;
  await undo(processor, attempt, await authorization());
  await markAttemptVoided(em, attempt.reference);
}

/**
 * An approval no sale will stand for (its record failed): undone at the processor whatever became of its
 * attempt meanwhile (recovery may have taken it and found nothing), then the attempt VOIDED.
 */
export async function cancelApproval(
  em: EntityManager,
  processor: Processor,
  attempt: AttemptMoney,
  processorReference: string,
): Promise<void> {
  await executeParameterized(em, takeForVoiding, [attempt.reference]);
  await undo(processor, attempt, processorReference);
  await markAttemptVoided(em, attempt.reference);
}

/**
 * An authorization attempt nothing stands for (no account took it, or what one did was cancelled): VOIDED at
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
