import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';

export const sweepQueue = 'idempotency-sweep';

/** Removes records whose 24 hours have passed, each by its merchant's clock. Returns how many. */
export async function sweepExpiredRecords(em: EntityManager): Promise<number> {
  const rows = await em.execute<{ count: string }[]>(
    `with gone as (
       delete from idempotency_record r using merchant m
       where r.merchant_id = m.id and r.expires_at <= now() + make_interval(secs => m.clock_offset_seconds)
       returning 1)
     select count(*) as count from gone`,
  );
  return Number(rows[0]?.count ?? 0);
}

/** The sweep as a pg-boss job every 10 minutes; one instance runs it at a time. */
export async function scheduleSweep(jobs: PgBoss, em: () => EntityManager): Promise<void> {
  await jobs.createQueue(sweepQueue);
  await jobs.schedule(sweepQueue, '*/10 * * * *');
  await jobs.work(sweepQueue, async () => {
    await sweepExpiredRecords(em());
  });
}
