import type { EntityManager } from '@mikro-orm/postgresql';
import { fromKysely, type PgBoss } from 'pg-boss';

/**
 * The queues that more than one capability reaches: named here, below all of them, so the one that works a
 * queue and the one that wakes it need not import each other (a sandbox clock advance wakes SEPA settlement).
 */

/** SEPA settlement runs (sepa/settlement.ts works them). */
export const settlementQueue = 'sepa-settlement';

/**
 * A run's worker heartbeats every 5 s: one that died is failed within about 15 s (and the next minute's run
 * starts), while a long live run is bounded by the queue's expiry only. Set on each job, since a queue's
 * heartbeat cannot be changed once created.
 */
export const settlementRun = { heartbeatSeconds: 10 };

/** Subscription renewal runs (recurring/renewals.ts works them). */
export const renewalQueue = 'recurring-renewal';

/**
 * A run's worker heartbeats: one that died is failed within about 20 s and the next run starts (the
 * leases it held run out on their own).
 */
export const renewalRun = { heartbeatSeconds: 10 };

/** Account updater runs (account-updater/answers.ts works them). */
export const accountUpdaterQueue = 'account-updater';

/** As settlement's: a run whose worker died is failed within seconds and the next one starts. */
export const accountUpdaterRun = { heartbeatSeconds: 10 };

/**
 * Asks for a run of a queue now (a sandbox clock moved, a subscription resumed). Sent through the caller's
 * transaction when there is one, so the run sees what that transaction wrote; a run already queued makes
 * this one unneeded.
 */
async function kick(jobs: PgBoss, queue: string, run: object, em?: EntityManager): Promise<void> {
  const transaction = em?.getTransactionContext();
  await jobs.send(queue, {}, { ...run, ...(transaction ? { db: fromKysely(transaction) } : {}) });
}

export const kickSettlement = (jobs: PgBoss, em?: EntityManager) =>
  kick(jobs, settlementQueue, settlementRun, em);

export const kickRenewals = (jobs: PgBoss, em?: EntityManager) => kick(jobs, renewalQueue, renewalRun, em);

export const kickAccountUpdater = (jobs: PgBoss, em?: EntityManager) =>
  kick(jobs, accountUpdaterQueue, accountUpdaterRun, em);

/**
 * Works a queue of runs that drain what is due by the merchants' clocks: one run at a time (a `stately`
 * queue: one active, at most one queued), every minute and whenever kicked, and one at once, which catches
 * up what a stopped core left due. A failed run is reported; the next one tries again.
 */
export async function workDueRuns(
  jobs: PgBoss,
  queue: string,
  run: { heartbeatSeconds: number },
  expireInSeconds: number,
  drain: () => Promise<unknown>,
  onError: (error: unknown) => void,
): Promise<void> {
  await jobs.createQueue(queue, { policy: 'stately', expireInSeconds, retryLimit: 0 });
  await jobs.schedule(queue, '* * * * *', {}, run);
  await kick(jobs, queue, run);
  await jobs.work(queue, { pollingIntervalSeconds: 1 }, async () => {
    try {
      await drain();
    } catch (error) {
      onError(error);
      throw error;
    }
  });
}
