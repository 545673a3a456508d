import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { ProcessorUnavailable } from '../processors/processor.ts';
import { AttemptTakenOver } from './attempts.ts';

/**
 * The one way to a processor. Every payment operation (an authorization, a capture, a cancel, a refund, a
 * SEPA collection) is a value of this type and runs through `runPayment`; nothing else calls a processor.
 * The phases are Hyperswitch's (ValidateRequest/GetTracker -> call -> UpdateTracker/PostUpdateTracker) with Medusa's split
 * of the provider call from its recording:
 * - prepare: validate, claim the idempotency key and merchantTransactionId, write the attempt with the
 *   reference the processor will know it by and the account routing chose; committed before the call.
 * - call: the processor, outside any transaction, connection or lock, within the connector's deadline.
 * - record: the outcome, the transaction rows, the events (IPNs) and a keyed call's answer, in one
 *   transaction.
 * - recover (payments/recovery.ts): an attempt whose call never got an answer (timeout, core killed) is
 *   resolved later by asking the processor; the shopper is never charged twice.
 */
export interface PaymentOperation<Prepared, Outcome, Answer, Ctx extends PipelineContext = MerchantContext> {
  prepare(ctx: Ctx): Promise<Prepared>;
  call(ctx: Ctx, prepared: Prepared): Promise<Outcome>;
  record(em: EntityManager, prepared: Prepared, outcome: Outcome): Promise<Answer>;
  /** The outcome could not be recorded: undo at the processor what no row will stand for. */
  compensate?(ctx: Ctx, prepared: Prepared, outcome: Outcome): Promise<void>;
}

/**
 * What the phases run with: a merchant's context for a merchant's payment; SEPA settlement, whose batch
 * spans merchants, a worker context of its own (sepa/settlement.ts).
 */
export interface PipelineContext {
  em: EntityManager;
}

/** "Not now" (503, Retry-After, never a key's answer), keeping what caused it for the log. */
function notNow(description: string, cause: Error): DomainError {
  const refusal = new DomainError('SERVICE_UNAVAILABLE', description);
  refusal.cause = cause;
  return refusal;
}

/**
 * How the merchant hears of a payment without an answer:
 * - the processor did not answer: nothing charged when the attempt was abandoned; otherwise its outcome is
 *   being resolved, and a keyed retry answers 409 until the recovery worker has, then runs afresh;
 * - the call outlasted the recovery delay: recovery voided the attempt meanwhile and what the processor did
 *   was undone (compensate), so nothing stands and the key is free.
 */
function unanswered(error: ProcessorUnavailable | AttemptTakenOver): DomainError {
  if (error instanceof AttemptTakenOver)
    return notNow(
      'the payment took longer than its recovery delay and was voided; nothing was charged, retry later',
      error,
    );
  return notNow(
    error.reached
      ? 'the payment processor did not answer; the outcome is being resolved, retry later'
      : 'no payment processor answered; nothing was charged, retry later',
    error,
  );
}

/** Runs an operation's phases in order. */
export async function runPayment<Prepared, Outcome, Answer, Ctx extends PipelineContext = MerchantContext>(
  ctx: Ctx,
  operation: PaymentOperation<Prepared, Outcome, Answer, Ctx>,
): Promise<Answer> {
  return runPrepared(ctx, operation, await operation.prepare(ctx));
}

/**
 * The batch entry: runs call and record for an operation prepared already, with others at once (renewals
 * claim a leased batch's charges in one statement; settlement claims a batch of due debits).
 */
export async function runPrepared<Prepared, Outcome, Answer, Ctx extends PipelineContext = MerchantContext>(
  ctx: Ctx,
  operation: PaymentOperation<Prepared, Outcome, Answer, Ctx>,
  prepared: Prepared,
): Promise<Answer> {
  const outcome = await operation.call(ctx, prepared).catch((error: unknown) => {
    throw error instanceof ProcessorUnavailable ? unanswered(error) : error;
  });
  try {
    return await inTransaction(ctx.em, (em) => operation.record(em, prepared, outcome));
  } catch (error) {
    await operation.compensate?.(ctx, prepared, outcome);
    if (error instanceof AttemptTakenOver) throw unanswered(error);
    throw error;
  }
}
