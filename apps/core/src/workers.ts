import { scheduleRecovery } from './cards/recovery.ts';
import type { CoreServices } from './context.ts';
import { scheduleSweep } from './idempotency/sweep.ts';
import { startDeliveryWorkers } from './ipn/delivery.ts';
import { startSettlementWorkers } from './sepa/settlement.ts';

type LogError = (message: string, fields: Record<string, unknown>) => void;

/** What a starter leaves running beyond its pg-boss workers (those stop with pg-boss itself). */
export interface StartedWorker {
  stop(): Promise<void>;
}

export type WorkerStarter = (
  services: CoreServices,
  logError: LogError,
) => Promise<StartedWorker | undefined>;

const failureLogger = (logError: LogError, message: string) => (error: unknown) =>
  logError(message, { error: error instanceof Error ? error.message : String(error) });

/**
 * Everything a worker-role core runs (CORE_ROLE worker or both): a new background job joins here, with one
 * line, and is started after the database is current and stopped on drain.
 */
export const workerStarters: WorkerStarter[] = [
  async (services) => {
    await scheduleSweep(services.jobs, () => services.orm.em.fork(), services.mode);
    return undefined;
  },
  async (services, logError) =>
    startDeliveryWorkers(services, failureLogger(logError, 'IPN delivery failed')),
  async (services, logError) => {
    await startSettlementWorkers(services, failureLogger(logError, 'SEPA settlement failed'));
    return undefined;
  },
  async (services, logError) => {
    await scheduleRecovery(
      services,
      services.payments.recoveryAfterSeconds,
      failureLogger(logError, 'payment recovery failed'),
    );
    return undefined;
  },
];
