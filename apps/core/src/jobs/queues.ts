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

/**
 * Asks for a settlement run now (a sandbox clock moved). Sent through the caller's transaction when there
 * is one, so the run sees what that transaction wrote; a run already queued makes this one unneeded.
 */
export async function kickSettlement(jobs: PgBoss, em?: EntityManager): Promise<void> {
  const transaction = em?.getTransactionContext();
  await jobs.send(
    settlementQueue,
    {},
    { ...settlementRun, ...(transaction ? { db: fromKysely(transaction) } : {}) },
  );
}
