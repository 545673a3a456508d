import { PgBoss } from 'pg-boss';

/**
 * pg-boss, in its own schema of our database. Jobs that must follow a write are sent through the
 * writing transaction (pg-boss's `db` option), so none is lost and none follows a rolled-back write.
 */
export async function startJobs(databaseUrl: string, onError: (error: unknown) => void): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: 'pgboss',
    max: 4,
    application_name: 'paywire-core-jobs',
    // A core killed mid-job leaves it active until it expires: look every few seconds, not every minute,
    // and keep the queue statistics that drive burst fetching fresh.
    superviseIntervalSeconds: 5,
    monitorIntervalSeconds: 5,
    queueCacheIntervalSeconds: 2,
  });
  boss.on('error', onError);
  await boss.start();
  return boss;
}
