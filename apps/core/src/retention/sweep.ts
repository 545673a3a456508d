import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Mode } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { runHeartbeat } from '../jobs/queues.ts';
import {
  deleteOldDeliveries,
  deleteOldLoginFailures,
  deleteRetiredIpnSecrets,
  eraseTokenCards,
} from './queries.ts';

export const retentionQueue = 'retention-sweep';

/** How long data kept only for operations lives (docs/operations.md, Retention). */
export interface RetentionSettings {
  /** Finished IPN deliveries, bodies included. */
  ipnDeliveryDays: number;
  /** Failed-login counts, which hold usernames and client addresses. */
  loginFailureHours: number;
}

/** Rows per statement: a large backlog is worked through in short transactions. */
const batch = 5_000;

export interface RetentionSweep {
  tokenCards: number;
  deliveries: number;
  loginFailures: number;
  ipnSecrets: number;
}

/** Runs one statement until it finds fewer rows than a batch; how many in all. */
async function drain(em: EntityManager, statement: string, parameters: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = await executeParameterized<{ count: number }>(em, statement, [...parameters, batch]);
    const count = row?.count ?? 0;
    total += count;
    if (count < batch) return total;
  }
}

/**
 * Erases what has outlived its purpose: the card (number, CVV) of hosted-fields tokens spent or expired by
 * their merchant's clock (live mode ignores sandbox offsets, as `callNow` does), finished IPN deliveries and
 * forgotten failed logins past their periods, and IPN secrets a rotation's overlap has ended for. Returns how
 * many of each.
 */
export async function sweepRetention(
  em: EntityManager,
  mode: Mode,
  settings: RetentionSettings,
): Promise<RetentionSweep> {
  return {
    tokenCards: await drain(em, eraseTokenCards, [new Date(), mode === 'live']),
    deliveries: await drain(em, deleteOldDeliveries, [settings.ipnDeliveryDays]),
    loginFailures: await drain(em, deleteOldLoginFailures, [settings.loginFailureHours]),
    ipnSecrets: await drain(em, deleteRetiredIpnSecrets, []),
  };
}

/** The sweep as a pg-boss job every 5 minutes (a token lives 60); one instance runs it at a time. */
export async function scheduleRetention(
  jobs: PgBoss,
  em: () => EntityManager,
  mode: Mode,
  settings: RetentionSettings,
): Promise<void> {
  await jobs.createQueue(retentionQueue);
  await jobs.schedule(retentionQueue, '*/5 * * * *', {}, runHeartbeat);
  await jobs.work(retentionQueue, async () => {
    await sweepRetention(em(), mode, settings);
  });
}

declare module '../context.ts' {
  interface CoreServices {
    /** How long operational data lives before the retention sweep erases it (retention/sweep.ts). */
    retention: RetentionSettings;
  }
}
