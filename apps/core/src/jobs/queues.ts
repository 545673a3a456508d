import type { EntityManager } from '@mikro-orm/postgresql';
import { fromKysely, type PgBoss } from 'pg-boss';

/**
 * The queues that more than one capability reaches: named here, below all of them, so the one that works a
 * queue and the one that wakes it need not import each other (a sandbox clock advance wakes SEPA settlement).
 */

/** SEPA settlement runs (sepa/settlement.ts works them). */
export const settlementQueue = 'sepa-settlement';

/** Subscription renewal runs (recurring/renewals.ts works them). */
export const renewalQueue = 'recurring-renewal';

/** Account updater runs (account-updater/answers.ts works them). */
export const accountUpdaterQueue = 'account-updater';

/** Vendor payout runs (marketplace/payouts.ts works them). */
export const payoutQueue = 'marketplace-payout';

/**
 * Every long job's heartbeat (the runs here, the sweeps, re-encryption): its worker refreshes it every 5 s
 * (pg-boss's default, half of it), and a supervision pass (every 5 s, boss.ts) fails a job not heard from for
 * 10 s, so a job whose worker died is failed within about 15 s and the next one starts, while a live one,
 * however long, is bounded by its queue's expiry only. Set on each job, not the queue: createQueue leaves a
 * queue that exists as it was.
 */
export const runHeartbeat = { heartbeatSeconds: 10 };

/**
 * Asks for a run of a queue now (a sandbox clock moved, a subscription resumed). Sent through the caller's
 * transaction when there is one, so the run sees what that transaction wrote; a run already queued makes
 * this one unneeded.
 */
async function kick(jobs: PgBoss, queue: string, em?: EntityManager): Promise<void> {
  const transaction = em?.getTransactionContext();
  await jobs.send(queue, {}, { ...runHeartbeat, ...(transaction ? { db: fromKysely(transaction) } : {}) });
}

/**
 * Works a queue of clocked runs: one at a time (a `stately` queue: one active, at most one queued), every
 * minute, at once (catching up what a stopped core left due) and whenever kicked. A failed run is reported
 * and fails its job (no retry: the next minute's run takes over).
 */
export async function startRuns(
  jobs: PgBoss,
  queue: string,
  expireInSeconds: number,
  work: () => Promise<unknown>,
  onError: (error: unknown) => void,
): Promise<void> {
  await jobs.createQueue(queue, { policy: 'stately', expireInSeconds, retryLimit: 0 });
  await jobs.schedule(queue, '* * * * *', {}, runHeartbeat);
  await kick(jobs, queue);
  await jobs.work(queue, { pollingIntervalSeconds: 1 }, async () => {
    try {
      await work();
    } catch (error) {
      onError(error);
      throw error;
    }
  });
}

export const kickSettlement = (jobs: PgBoss, em?: EntityManager) => kick(jobs, settlementQueue, em);

export const kickRenewals = (jobs: PgBoss, em?: EntityManager) => kick(jobs, renewalQueue, em);

export const kickAccountUpdater = (jobs: PgBoss, em?: EntityManager) => kick(jobs, accountUpdaterQueue, em);

export const kickPayouts = (jobs: PgBoss, em?: EntityManager) => kick(jobs, payoutQueue, em);
