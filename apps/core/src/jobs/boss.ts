import { PgBoss } from 'pg-boss';

/**
 * pg-boss, in its own schema of our database. Jobs that must follow a write are sent through the
 * writing transaction (pg-boss's `db` option), so none is lost and none follows a rolled-back write.
 */
const schema = 'pgboss';

/**
 * Starts pg-boss over a schema `npm run migrate` made (it never migrates at boot). An API-role core only
 * sends jobs: it neither supervises (expiry, retention) nor creates scheduled jobs, the workers do.
 */
export async function startJobs(
  databaseUrl: string,
  onError: (error: unknown) => void,
  options: { worker: boolean } = { worker: true },
): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema,
    max: 4,
    application_name: 'paywire-core-jobs',
    migrate: false,
    createSchema: false,
    supervise: options.worker,
    schedule: options.worker,
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

/** Creates or updates pg-boss's schema: part of `npm run migrate`, under its advisory lock. */
export async function migrateJobSchema(databaseUrl: string): Promise<void> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema,
    max: 1,
    application_name: 'paywire-migrate',
    supervise: false,
    schedule: false,
  });
  await boss.start();
  await boss.stop({ graceful: false });
}

/** A pg-boss error as a log field: its message and code, not "[object Object]". */
export function describeJobError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error))
    return { error: typeof error === 'object' ? JSON.stringify(error) : String(error) };
  const { code, queue } = error as Error & { code?: unknown; queue?: unknown };
  return {
    error: error.name,
    detail: error.message,
    ...(code ? { code } : {}),
    ...(queue ? { queue } : {}),
    stack: error.stack,
  };
}
