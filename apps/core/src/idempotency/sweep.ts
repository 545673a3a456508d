import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Mode } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { runHeartbeat } from '../jobs/queues.ts';
import { deleteExpiredRecords } from './queries.ts';

export const sweepQueue = 'idempotency-sweep';

/**
 * Removes records whose 24 hours have passed, each by its merchant's clock: core's clock (expiry was written
 * from it) plus the merchant's sandbox offset, which live mode ignores as `callNow` does. A record kept in
 * live mode must not go early because of an offset left from sandbox days. Returns how many.
 */
export async function sweepExpiredRecords(em: EntityManager, mode: Mode): Promise<number> {
  const rows = await executeParameterized<{ count: string }>(em, deleteExpiredRecords, [
    new Date(),
    mode === 'live',
  ]);
  return Number(rows[0]?.count ?? 0);
}

/** The sweep as a pg-boss job every 10 minutes; one instance runs it at a time. */
export async function scheduleSweep(jobs: PgBoss, em: () => EntityManager, mode: Mode): Promise<void> {
  await jobs.createQueue(sweepQueue);
  await jobs.schedule(sweepQueue, '*/10 * * * *', {}, runHeartbeat);
  await jobs.work(sweepQueue, async () => {
    await sweepExpiredRecords(em(), mode);
  });
}
