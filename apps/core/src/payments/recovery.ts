import type { EntityManager } from '@mikro-orm/postgresql';
import type { CoreServices } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { sendFollower } from '../jobs/boss.ts';
import { type AttemptKind, voidAttempt } from './attempts.ts';
import { modify } from './modify.ts';
import { answerKeyInFlight, completeAttempt, freeStaleKeys, unresolvedAttempts } from './queries.ts';

export const recoveryQueue = 'payment-recovery';

interface Unresolved {
  reference: string;
  merchant_id: number;
  kind: AttemptKind;
  amount_minor: string;
  currency: string | null;
  idempotency_key: string | null;
  processor_account_id: number | null;
  transaction_id: string | null;
  processor_reference: string | null;
}

/** A completed change's answer, as its keyed call would have had it (cards/recovered.ts reads it). */
export type RecoveredAnswer = (
  em: EntityManager,
  change: { merchantId: number; kind: AttemptKind; transactionId: number; reference: string },
) => Promise<unknown>;

/**
 * Kill Bill's janitor for our attempts: every attempt without an outcome `afterSeconds` after its call began
 * (core died, or the processor's answer was lost) is resolved by asking the processor account it went to.
 * An authorization is voided: the caller never had an answer, so nothing acknowledged is lost, and a keyed
 * retry authorizes afresh; the processor is asked what it did under the reference (an inquiry), and where it
 * cannot tell, whatever it did is technically cancelled. A capture, reversal or refund was reserved on its
 * transaction before the call, so it is completed: the call is repeated by its reference, which the
 * processor does at most once, and a keyed call's key is given the answer it would have had (`answer`), so
 * its retry replays rather than refunding again. Keys left in flight with no unresolved attempt (core died
 * around its phases) are freed. One attempt that fails is left for the next run and does not hold up the
 * others; the failures are thrown together at the end. Returns how many attempts were resolved.
 * `afterSeconds` must exceed the longest a processor call may take, so a live call is never resolved here.
 */
export async function recoverAttempts(
  services: Pick<CoreServices, 'orm' | 'processors'>,
  afterSeconds: number,
  answer: RecoveredAnswer,
  limit = 100,
): Promise<number> {
  const em = services.orm.em.fork();
  const attempts = await executeParameterized<Unresolved>(em, unresolvedAttempts, [afterSeconds, limit]);
  const failures: unknown[] = [];
  for (const attempt of attempts) {
    await resolve(services, em, attempt, answer).catch((error: unknown) => failures.push(error));
  }
  await executeParameterized(em, freeStaleKeys, [afterSeconds]);
  if (failures.length > 0)
    throw new AggregateError(failures, `${failures.length} payment attempts stay unresolved`);
  return attempts.length - failures.length;
}

async function resolve(
  services: Pick<CoreServices, 'processors'>,
  em: EntityManager,
  attempt: Unresolved,
  answer: RecoveredAnswer,
): Promise<void> {
  const { reference, kind } = attempt;
  const merchantId = attempt.merchant_id;
  const account = await services.processors.account(em, merchantId, attempt.processor_account_id);
  const processor = services.processors.connect(account);
  const amountMinor = Number(attempt.amount_minor);
  // attempts written before 0019 carry no currency: the sandbox's, which needs none
  const currency = attempt.currency ?? '';
  if (kind === 'AUTHORIZE') {
    await voidAttempt(em, processor, { reference, amountMinor, currency }, async () => {
      // Adyen cannot be asked, but its AUTHORISATION notification has come by now, and an approved payment
      // is reversed by its pspReference: a technical cancel, all that is left without it, is refused once a
      // sale is captured, and would leave the attempt unresolved and its key in flight for good.
      let found = await processor.inquire(reference);
      if (found === 'unknown' && processor.notifiedOutcome)
        found = await processor.notifiedOutcome(reference);
      if (found === 'unseen' || found === 'unknown') return found;
      return found.approved ? found.processorReference : 'unseen';
    });
    return;
  }
  const processorReference = attempt.processor_reference;
  const transactionId = attempt.transaction_id === null ? null : Number(attempt.transaction_id);
  if (processorReference === null || transactionId === null)
    throw new Error(`attempt ${reference} has no authorization`);
  const outcome = await modify(processor, kind, { reference, processorReference, amountMinor, currency });
  await inTransaction(em, async (em) => {
    await executeParameterized(em, completeAttempt, [
      reference,
      outcome.status === 'done' ? 'DONE' : 'AWAITING',
      outcome.processorReference ?? null,
    ]);
    if (attempt.idempotency_key) {
      const data = await answer(em, { merchantId, kind, transactionId, reference });
      await executeParameterized(em, answerKeyInFlight, [
        merchantId,
        attempt.idempotency_key,
        JSON.stringify({ ok: true, data }),
      ]);
    }
  });
}

/**
 * The recovery as a pg-boss job: at start, then again `afterSeconds` (at most a minute) after each run, that
 * follower queued through a database outage too (`sendFollower`); a cron every minute restarts the chain
 * should a run's follower be lost all the same (its core killed). At most one run waits (policy
 * `short`); a run still marked active by a killed core blocks nothing, and two runs at once are harmless:
 * every step is conditional on the attempt's state and idempotent at the processor.
 */
export async function scheduleRecovery(
  services: Pick<CoreServices, 'orm' | 'processors' | 'jobs'>,
  afterSeconds: number,
  answer: RecoveredAnswer,
  onError: (error: unknown) => void,
): Promise<void> {
  const { jobs } = services;
  await jobs.createQueue(recoveryQueue, { policy: 'short', expireInSeconds: 300, retryLimit: 0 });
  await jobs.schedule(recoveryQueue, '* * * * *');
  await jobs.work(recoveryQueue, { pollingIntervalSeconds: 1 }, async ([job]) => {
    try {
      await recoverAttempts(services, afterSeconds, answer);
    } catch (error) {
      onError(error);
      throw error;
    } finally {
      await sendFollower(
        jobs,
        recoveryQueue,
        { startAfter: Math.min(afterSeconds, 60) },
        { ...(job ? { signal: job.signal } : {}), onRetry: onError },
      );
    }
  });
  await jobs.send(recoveryQueue, {}, { startAfter: 0 });
}
