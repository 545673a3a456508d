import type { Logger } from '@paywire/observability';
import { startAccountUpdaterWorkers } from './account-updater/answers.ts';
import { recoveredAnswer } from './cards/recovered.ts';
import type { CoreServices } from './context.ts';
import { scheduleSweep } from './idempotency/sweep.ts';
import { startDeliveryWorkers } from './ipn/delivery.ts';
import { sealPlainIpnSecrets } from './ipn/secret.ts';
import { startReencryption } from './keys/reencrypt.ts';
import { keyReencryptionFailures, renewalFailures, sepaRunFailures } from './metrics.ts';
import { scheduleRecovery } from './payments/recovery.ts';
import { scheduleNotificationJanitor } from './processors/adyen/notifications.ts';
import { renewalDebitParameters, startRenewalWorkers } from './recurring/renewals.ts';
import { scheduleRetention } from './retention/sweep.ts';
import { startSettlementWorkers } from './sepa/settlement.ts';

/** What a starter leaves running beyond its pg-boss workers (those stop with pg-boss itself). */
export interface StartedWorker {
  stop(): Promise<void>;
}

export type WorkerStarter = (services: CoreServices, log: Logger) => Promise<StartedWorker | undefined>;

/** Stored notifications still unprocessed this long after they arrived were left by a core that died. */
const notificationJanitorAfterSeconds = 60;

/** A child logger per kind of job, so its lines say which work failed. */
const failureLogger = (log: Logger, job: string, message: string) => {
  const jobLog = log.child({ job });
  return (error: unknown) => jobLog.error({ error }, message);
};

/**
 * Everything a worker-role core runs (CORE_ROLE worker or both): a new background job joins here, with one
 * line, and is started after the database is current and stopped on drain.
 */
export const workerStarters: WorkerStarter[] = [
  async (services) => {
    await scheduleSweep(services.jobs, () => services.orm.em.fork(), services.mode);
    return undefined;
  },
  async (services) => {
    await scheduleRetention(services.jobs, () => services.orm.em.fork(), services.mode, services.retention);
    return undefined;
  },
  async (services, log) => {
    // IPN secrets kept in plain text before 0029-retention are sealed before anything is delivered.
    const sealed = await sealPlainIpnSecrets(services.orm.em.fork(), services.vault);
    if (sealed > 0) log.info({ sealed }, 'sealed IPN secrets kept in plain text');
    return startDeliveryWorkers(services, failureLogger(log, 'ipn-delivery', 'IPN delivery failed'));
  },
  async (services, log) => {
    const logFailure = failureLogger(log, 'sepa-settlement', 'SEPA settlement failed');
    const onError = (error: unknown) => {
      sepaRunFailures.inc();
      logFailure(error);
    };
    await startSettlementWorkers(services, onError, { recurringDebits: renewalDebitParameters });
    return undefined;
  },
  async (services, log) => {
    await startAccountUpdaterWorkers(
      services,
      failureLogger(log, 'account-updater', 'answering account updater batches failed'),
    );
    return undefined;
  },
  async (services, log) => {
    const logFailure = failureLogger(log, 'recurring-renewal', 'subscription renewal failed');
    await startRenewalWorkers(services, (error) => {
      renewalFailures.inc();
      logFailure(error);
    });
    return undefined;
  },
  async (services, log) => {
    await scheduleRecovery(
      services,
      services.payments.recoveryAfterSeconds,
      recoveredAnswer,
      failureLogger(log, 'payment-recovery', 'payment recovery failed'),
    );
    return undefined;
  },
  async (services, log) => {
    await scheduleNotificationJanitor(
      services,
      notificationJanitorAfterSeconds,
      failureLogger(log, 'processor-notifications', 'processing stored processor notifications failed'),
    );
    return undefined;
  },
  async (services, log) => {
    const logFailure = failureLogger(log, 'keys-reencrypt', 'a sealed value could not be re-encrypted');
    await startReencryption(services.jobs, services.orm, services.keys, (error) => {
      keyReencryptionFailures.inc();
      logFailure(error);
    });
    return undefined;
  },
];
