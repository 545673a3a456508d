import { readFileSync } from 'node:fs';
import { type Logger, serveMetrics } from '@paywire/observability';
import type { CoreEnv } from './env.ts';
import { keyProviderOf } from './keys/configured.ts';
import { KeyConfigurationError } from './keys/provider.ts';
import { sandboxPayoutBank, sandboxPayoutDebtor } from './marketplace/payout-bank.ts';
import { coreRegistry } from './metrics.ts';
import { createSandboxProcessor } from './processors/sandbox/processor.ts';
import { type RunningCore, startCore } from './server.ts';
import { parseGoogleRootKeys, parsePemCertificates } from './wallets/keys.ts';

/**
 * Core as configured by its environment, started and listening, with its metrics served when asked: what
 * the core process (main.ts) and the single-process mode (infra/single-process.ts) both run. A wrong or
 * missing key, or a wrong HSM PIN, ends the process saying why, instead of failing every request.
 */
export async function bootCore(env: CoreEnv, log: Logger): Promise<RunningCore> {
  const walletTrust = {
    googleRootKeys: env.GOOGLE_PAY_ROOT_KEYS_FILE
      ? parseGoogleRootKeys(readFileSync(env.GOOGLE_PAY_ROOT_KEYS_FILE, 'utf8'))
      : [],
    // Apple Root CA - G3 ships with Paywire (valid until 2039); a file replaces it.
    appleRootCertificates: parsePemCertificates(
      readFileSync(
        env.APPLE_PAY_ROOT_CERTIFICATES_FILE ??
          new URL('./wallets/roots/apple-root-ca-g3.pem', import.meta.url),
        'utf8',
      ),
    ),
  };
  let core: RunningCore;
  try {
    core = await startCore({
      log,
      walletTrust,
      applePayGateway: {
        merchantIdentifier: env.APPLE_PAY_MERCHANT_IDENTIFIER,
        url: env.APPLE_PAY_GATEWAY_URL,
        identityCertificate: env.APPLE_PAY_IDENTITY_CERTIFICATE_FILE
          ? readFileSync(env.APPLE_PAY_IDENTITY_CERTIFICATE_FILE, 'utf8')
          : undefined,
        identityKey: env.APPLE_PAY_IDENTITY_KEY_FILE
          ? readFileSync(env.APPLE_PAY_IDENTITY_KEY_FILE, 'utf8')
          : undefined,
      },
      ...(env.FRAUD_IP_COUNTRIES_FILE
        ? { ipCountryRanges: readFileSync(env.FRAUD_IP_COUNTRIES_FILE, 'utf8') }
        : {}),
      databaseUrl: env.DATABASE_URL,
      role: env.CORE_ROLE,
      shutdownGraceMs: env.SHUTDOWN_GRACE_SECONDS * 1000,
      shutdownDelayMs: env.SHUTDOWN_DELAY_SECONDS * 1000,
      host: env.CORE_HOST,
      port: env.CORE_PORT,
      mode: env.PAYWIRE_MODE,
      cardEncryptionKey: env.CARD_ENCRYPTION_KEY,
      keyProvider: await keyProviderOf(env),
      keyRefreshMs: env.KEY_REFRESH_SECONDS * 1000,
      keyRetireAfterSeconds: env.KEY_RETIRE_AFTER_SECONDS,
      poolSize: env.DATABASE_POOL_SIZE,
      databaseAnswerTimeoutMs: env.DATABASE_ANSWER_TIMEOUT_MS,
      databaseOutageWaitMs: env.DATABASE_OUTAGE_WAIT_MS,
      databaseNamedStatements: env.DATABASE_NAMED_STATEMENTS,
      ipnRetryDelaySeconds: env.IPN_RETRY_DELAY_SECONDS,
      ipnDestinationConcurrency: env.IPN_DESTINATION_CONCURRENCY,
      sepaSandboxSettleSeconds: env.SEPA_SANDBOX_SETTLE_SECONDS,
      ipnDeliveryRetentionDays: env.IPN_DELIVERY_RETENTION_DAYS,
      loginFailureRetentionHours: env.LOGIN_FAILURE_RETENTION_HOURS,
      sandbox: createSandboxProcessor({
        latencyMs: env.SANDBOX_ACQUIRER_LATENCY_MS,
        ...(env.SANDBOX_ACQUIRER_JOURNAL ? { journal: env.SANDBOX_ACQUIRER_JOURNAL } : {}),
      }),
      paymentRecoveryAfterSeconds: env.PAYMENT_RECOVERY_AFTER_SECONDS,
      payoutBank: sandboxPayoutBank({
        latencyMs: env.PAYOUT_SANDBOX_LATENCY_MS,
        ...(env.PAYOUT_FILE_DIR ? { fileDir: env.PAYOUT_FILE_DIR } : {}),
      }),
      payoutDebtor: {
        name: env.PAYOUT_DEBTOR_NAME ?? sandboxPayoutDebtor.name,
        iban: env.PAYOUT_DEBTOR_IBAN ?? sandboxPayoutDebtor.iban,
        ...(env.PAYOUT_DEBTOR_BIC ? { bic: env.PAYOUT_DEBTOR_BIC } : {}),
      },
      adyenTimeoutMs: env.ADYEN_TIMEOUT_MS,
      ...(env.IPN_ALLOW_PRIVATE_TARGETS === undefined
        ? {}
        : { ipnAllowPrivateTargets: env.IPN_ALLOW_PRIVATE_TARGETS }),
    });
  } catch (error) {
    if (!(error instanceof KeyConfigurationError)) throw error;
    log.fatal({ reason: error.message }, `refusing to start: ${error.message}`);
    process.stderr.write(`paywire core refuses to start: ${error.message}\n`);
    process.exit(1);
  }
  log.info({ url: core.url, role: env.CORE_ROLE, mode: env.PAYWIRE_MODE }, 'listening');
  if (env.CORE_METRICS_PORT !== undefined)
    await serveMetrics(coreRegistry, env.CORE_METRICS_PORT, env.CORE_HOST);
  return core;
}
