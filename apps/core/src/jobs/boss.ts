import { setTimeout as delay } from 'node:timers/promises';
import { PgBoss, type SendOptions } from 'pg-boss';
import { isDatabaseUnavailable } from '../db/unavailable.ts';

/**
 * pg-boss, in its own schema of our database. Jobs that must follow a write are sent through the
 * writing transaction (pg-boss's `db` option), so none is lost and none follows a rolled-back write.
 */
const schema = 'pgboss';

/**
 * Starts pg-boss over a schema `npm run migrate` made (it never migrates at boot). An API-role core only
 * sends jobs: it neither supervises (expiry, retention) nor creates scheduled jobs, the workers do. With
 * `answerTimeoutMs`, a statement unanswered that long fails and pg-boss drops its connection, as core's
 * own pool does (wire.ts).
 */
export async function startJobs(
  databaseUrl: string,
  onError: (error: unknown) => void,
  options: { worker: boolean; answerTimeoutMs?: number } = { worker: true },
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
    ...(options.answerTimeoutMs
      ? { query_timeout: options.answerTimeoutMs, connectionTimeoutMillis: options.answerTimeoutMs }
      : {}),
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

/** How long a follower's send keeps trying through an outage: past it, the queue's minutely cron has a run queued. */
const followerPersistenceSeconds = 60;

/**
 * Queues the next run of a job that schedules itself as each run ends. A run that ends while the database is
 * unreachable (a failover) would otherwise end its chain until the cron's next minute: the send is retried
 * every second through the outage instead, each failure reported to `onRetry`, until it lands, a minute has
 * passed, or `signal` aborts (the worker stops).
 */
export async function sendFollower(
  jobs: PgBoss,
  queue: string,
  options: SendOptions,
  { signal, onRetry }: { signal?: AbortSignal; onRetry?: (error: unknown) => void } = {},
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await jobs.send(queue, {}, options);
      return;
    } catch (error) {
      if (!isDatabaseUnavailable(error) || attempt >= followerPersistenceSeconds || signal?.aborted)
        throw error;
      onRetry?.(error);
      await delay(1000, undefined, signal ? { signal } : {}).catch(() => undefined);
    }
  }
}
