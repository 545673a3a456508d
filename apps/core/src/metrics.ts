import type { EntityManager } from '@mikro-orm/postgresql';
import { Counter, createRegistry, Gauge, Histogram } from '@paywire/observability';
import type { Pool } from 'pg';
import type { PgBoss } from 'pg-boss';

/**
 * Core's metrics (CORE_METRICS_PORT): one registry per process. Counters are bumped where the fact is
 * decided; gauges of the database and the queues are read when Prometheus scrapes.
 */
export const coreRegistry = createRegistry();
const registers = [coreRegistry];

export const processorNotifications = new Counter({
  name: 'paywire_processor_notifications_total',
  help: 'Processor notifications stored (repeats not counted), by event code (OTHER past the known ones) and success',
  labelNames: ['event', 'success'] as const,
  registers,
});

export const procedureDuration = new Histogram({
  name: 'trpc_procedure_duration_seconds',
  help: 'Time a tRPC procedure took, by procedure, type and outcome (ok or the tRPC error code)',
  labelNames: ['procedure', 'type', 'outcome'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers,
});

export const declines = new Counter({
  name: 'paywire_declines_total',
  help: 'Payments declined, by reason (the error name the merchant receives)',
  labelNames: ['reason'] as const,
  registers,
});

export const idempotencyOutcomes = new Counter({
  name: 'paywire_idempotency_total',
  help: 'Keyed calls answered from a stored answer (replay) or refused (conflict, in_progress)',
  labelNames: ['outcome'] as const,
  registers,
});

export const ipnDeliveries = new Counter({
  name: 'paywire_ipn_deliveries_total',
  help: 'IPN delivery attempts, by outcome: delivered, pending (will retry) or failed (gave up)',
  labelNames: ['outcome'] as const,
  registers,
});

export const ipnDeliveryLag = new Histogram({
  name: 'paywire_ipn_delivery_lag_seconds',
  help: 'From the event to its successful delivery (retries included)',
  buckets: [0.05, 0.1, 0.5, 1, 5, 30, 60, 300, 1800, 3600, 86_400],
  registers,
});

export const sepaSettlements = new Counter({
  name: 'paywire_sepa_settlements_total',
  help: 'SEPA debit transitions written by settlement runs, by the status reached',
  labelNames: ['outcome'] as const,
  registers,
});

export const sepaRunFailures = new Counter({
  name: 'paywire_sepa_settlement_run_failures_total',
  help: 'Settlement runs that failed (retried by the job runner)',
  registers,
});

export const payoutRunFailures = new Counter({
  name: 'paywire_payout_run_failures_total',
  help: 'Vendor payout runs that failed (retried by the job runner)',
  registers,
});

export const callerVerifications = new Counter({
  name: 'paywire_caller_verifications_total',
  help: 'Caller credential checks the cache could not answer, by source: read (from the database) or joined (waited for a read in flight)',
  labelNames: ['source'] as const,
  registers,
});

export const renewalSteps = new Counter({
  name: 'paywire_renewals_total',
  help: 'Subscription renewal steps written by renewal runs, by outcome',
  labelNames: ['outcome'] as const,
  registers,
});

export const renewalFailures = new Counter({
  name: 'paywire_renewal_failures_total',
  help: 'Subscription renewals that failed, left to a later run',
  registers,
});

const pools = new Set<Pool>();

/** The database pool, watched from its creation (db/wire.ts) until it ends. */
export function observePool(pool: Pool): void {
  pools.add(pool);
}

const livePools = () => {
  for (const pool of pools) if (pool.ended) pools.delete(pool);
  return [...pools];
};

const poolGauge = (name: string, help: string, read: (pool: Pool) => number) =>
  new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(livePools().reduce((sum, pool) => sum + read(pool), 0));
    },
  });
poolGauge('paywire_db_pool_connections', 'Open connections of the database pool', (pool) => pool.totalCount);
poolGauge('paywire_db_pool_idle', 'Idle connections of the database pool', (pool) => pool.idleCount);
poolGauge(
  'paywire_db_pool_waiting',
  'Callers waiting for a connection of the pool',
  (pool) => pool.waitingCount,
);

type Sampler = () => Promise<void>;
const samplers = new Set<Sampler>();

const queueDepth = new Gauge({
  name: 'pgboss_queue_depth',
  help: 'pg-boss jobs per queue and state (queued: created or retry and due; active), as pg-boss last counted them',
  labelNames: ['queue', 'state'] as const,
  registers,
  async collect() {
    // A database that cannot answer leaves these series out; the scrape itself (process metrics) still works.
    await Promise.all([...samplers].map((sample) => sample().catch(forgetSamples)));
  },
});
const queueOldest = new Gauge({
  name: 'pgboss_queue_oldest_job_age_seconds',
  help: 'Age of the oldest due job waiting in each pg-boss queue (0: none waiting)',
  labelNames: ['queue'] as const,
  registers,
});
const ipnBacklog = new Gauge({
  name: 'paywire_ipn_backlog',
  help: 'IPN deliveries due now and not yet delivered',
  registers,
});
const ipnBacklogAge = new Gauge({
  name: 'paywire_ipn_backlog_age_seconds',
  help: 'How long the oldest due IPN delivery has been waiting (0: none)',
  registers,
});

function forgetSamples(): void {
  for (const gauge of [queueDepth, queueOldest, ipnBacklog, ipnBacklogAge]) gauge.reset();
}

/**
 * Reads queue depths when scraped: pg-boss's own counts of each queue (getQueues: the counts its supervising
 * workers refresh every monitor pass, jobs/boss.ts) and one indexed aggregate statement on the IPN rows.
 * Returns the function that stops sampling (core's close).
 */
export function sampleQueues(em: () => EntityManager, jobs: PgBoss): () => void {
  const sample: Sampler = async () => {
    const queues = await jobs.getQueues();
    queueDepth.reset();
    queueOldest.reset();
    for (const queue of queues) {
      queueDepth.set({ queue: queue.name, state: 'queued' }, queue.readyCount);
      queueDepth.set({ queue: queue.name, state: 'active' }, queue.activeCount);
      queueOldest.set({ queue: queue.name }, queue.readyOldestSeconds ?? 0);
    }
    const connection = em().getConnection();
    const [ipn] = await connection.execute<{ due: number; oldest_seconds: number | null }[]>(
      `select count(*)::int as due, extract(epoch from now() - min(next_try_at))::float8 as oldest_seconds
         from ipn_delivery where state in ('pending', 'sending') and next_try_at <= now()`,
    );
    ipnBacklog.set(ipn?.due ?? 0);
    ipnBacklogAge.set(ipn?.oldest_seconds ?? 0);
  };
  samplers.add(sample);
  return () => samplers.delete(sample);
}

export const keyRowsReencrypted = new Counter({
  name: 'paywire_key_rows_reencrypted_total',
  help: 'Sealed values re-encrypted under the current data key by the rotation job, by table',
  labelNames: ['table'] as const,
  registers,
});

export const keyRowsRefingerprinted = new Counter({
  name: 'paywire_key_rows_refingerprinted_total',
  help: 'Vaulted cards and mandates given their fingerprint under the current fingerprint key by the rotation job, by table',
  labelNames: ['table'] as const,
  registers,
});

export const keyRetirements = new Counter({
  name: 'paywire_key_retirements_total',
  help: 'Data keys retired (wrapped material erased) once nothing referred to them',
  registers,
});

export const keyReencryptionFailures = new Counter({
  name: 'paywire_key_reencryption_failures_total',
  help: 'Sealed values the rotation job could not open (their key stays referenced, never retired)',
  registers,
});
