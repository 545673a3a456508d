import type { CoreServices } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { type AttemptKind, freeKey, voidAttempt } from './attempts.ts';
import { callAcquirer } from './lifecycle.ts';
import { completeAttempt, freeStaleKeys, unresolvedAttempts } from './queries.ts';

export const recoveryQueue = 'payment-recovery';

interface Unresolved {
  reference: string;
  merchant_id: number;
  kind: AttemptKind;
  amount_minor: string;
  idempotency_key: string | null;
  network_transaction_id: string | null;
}

/**
 * Kill Bill's janitor for our attempts: every attempt without an outcome after `afterSeconds` (core died,
 * or the acquirer's answer was lost) is resolved by asking the acquirer. An authorization is voided: the
 * caller never had an answer, so nothing acknowledged is lost, and a keyed retry authorizes afresh. A
 * capture, reversal or refund was reserved on its transaction before the call, so it is completed: the call
 * is repeated by its reference, which the acquirer does at most once. Keys left in flight with no
 * unresolved attempt (core died around its phases) are freed. Returns how many attempts were resolved.
 * `afterSeconds` must exceed the longest an acquirer call may take, so a live call is never resolved here.
 */
export async function recoverAttempts(
  services: Pick<CoreServices, 'orm' | 'acquirer'>,
  afterSeconds: number,
  limit = 100,
): Promise<number> {
  const ctx = { acquirer: services.acquirer, em: services.orm.em.fork() };
  const attempts = await executeParameterized<Unresolved>(ctx.em, unresolvedAttempts, [afterSeconds, limit]);
  for (const attempt of attempts) {
    if (attempt.kind === 'AUTHORIZE') {
      await voidAttempt(ctx, attempt.reference, async () => {
        const answer = await ctx.acquirer.inquire(attempt.reference);
        return answer?.approved ? answer.networkTransactionId : null;
      });
      continue;
    }
    const { reference, kind, network_transaction_id: networkTransactionId } = attempt;
    if (networkTransactionId === null) throw new Error(`attempt ${reference} has no authorization`);
    await callAcquirer(ctx, kind, networkTransactionId, Number(attempt.amount_minor), reference);
    await inTransaction(ctx.em, async (em) => {
      await executeParameterized(em, completeAttempt, [reference]);
      if (attempt.idempotency_key) await freeKey(em, attempt.merchant_id, attempt.idempotency_key);
    });
  }
  await executeParameterized(ctx.em, freeStaleKeys, [afterSeconds]);
  return attempts.length;
}

/**
 * The recovery as a pg-boss job: at start, then again `afterSeconds` (at most a minute) after each run; a
 * cron every minute restarts the chain should a run's follower be lost. At most one run waits (policy
 * `short`); a run still marked active by a killed core blocks nothing, and two runs at once are harmless:
 * every step is conditional on the attempt's state and idempotent at the acquirer.
 */
export async function scheduleRecovery(
  services: Pick<CoreServices, 'orm' | 'acquirer' | 'jobs'>,
  afterSeconds: number,
  onError: (error: unknown) => void,
): Promise<void> {
  const { jobs } = services;
  const next = (startAfter: number) => jobs.send(recoveryQueue, {}, { startAfter });
  await jobs.createQueue(recoveryQueue, { policy: 'short', expireInSeconds: 300, retryLimit: 0 });
  await jobs.schedule(recoveryQueue, '* * * * *');
  await jobs.work(recoveryQueue, { pollingIntervalSeconds: 1 }, async () => {
    try {
      await recoverAttempts(services, afterSeconds);
    } catch (error) {
      onError(error);
      throw error;
    } finally {
      await next(Math.min(afterSeconds, 60));
    }
  });
  await next(0);
}
