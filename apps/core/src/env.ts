import { parseEnvironment } from '@paywire/contracts';
import { z } from 'zod';

/** The keys' configuration (docs/keys.md): core's, and the CLIs' that open sealed values (keys, processor). */
const keyFields = {
  /**
   * The file provider's key-encryption key source (32 bytes, base64), and with any provider the static key of
   * `v1` data, imported at the first start (docs/keys.md). Required with KEY_PROVIDER=file.
   */
  CARD_ENCRYPTION_KEY: z
    .string()
    .optional()
    .transform((value) => (value ? Buffer.from(value, 'base64') : undefined))
    .refine((key) => key === undefined || key.length === 32, 'must be 32 bytes, base64-encoded'),
  /** Who holds the key-encryption key: file (the embedded default, not for live use) or pkcs11 (an HSM). */
  KEY_PROVIDER: z.enum(['file', 'pkcs11']).default('file'),
  /** pkcs11: the PKCS#11 library, the token's label, its user PIN and the KEK's label on it. */
  PKCS11_MODULE: z.string().optional(),
  PKCS11_TOKEN_LABEL: z.string().optional(),
  PKCS11_PIN: z.string().optional(),
  PKCS11_KEY_LABEL: z.string().default('paywire-kek'),
  /** How often each core re-reads the data keys; a rotation's new key seals only after twice this. */
  KEY_REFRESH_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  /** After a new data key seals, how long before old keys nothing refers to are retired. */
  KEY_RETIRE_AFTER_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
};

type KeyFields = z.output<z.ZodObject<typeof keyFields>>;

function checkKeyFields(env: KeyFields, context: z.RefinementCtx): void {
  if (env.KEY_PROVIDER === 'file' && !env.CARD_ENCRYPTION_KEY)
    context.addIssue({
      code: 'custom',
      path: ['CARD_ENCRYPTION_KEY'],
      message: 'is required with KEY_PROVIDER=file',
    });
  if (env.KEY_PROVIDER === 'pkcs11')
    for (const name of ['PKCS11_MODULE', 'PKCS11_TOKEN_LABEL', 'PKCS11_PIN'] as const)
      if (!env[name])
        context.addIssue({ code: 'custom', path: [name], message: 'is required with KEY_PROVIDER=pkcs11' });
}

/** Core's configuration: the only place core reads the environment. */
const schema = z
  .object({
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
    /** api: tRPC only; worker: background jobs only (still serves /healthz and /readyz); both. */
    CORE_ROLE: z.enum(['api', 'worker', 'both']).default('both'),
    /** SIGTERM: how long in-flight requests and the current job batch may take before the process exits. */
    SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
    /** SIGTERM: seconds /readyz fails while the listener still accepts, for load balancers that poll it. */
    SHUTDOWN_DELAY_SECONDS: z.coerce.number().int().min(0).max(600).default(0),
    CORE_HOST: z.string().default('127.0.0.1'),
    CORE_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
    PAYWIRE_MODE: z.enum(['sandbox', 'live']).default('sandbox'),
    ...keyFields,
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(16),
    /** How long core waits for PostgreSQL's answer or a connection before giving the connection up (503). */
    DATABASE_ANSWER_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
    /** How long a call waits for a connection while the database cannot be reached, before its 503. */
    DATABASE_OUTAGE_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
    /** false behind a PgBouncer in transaction mode that does not track prepared statements (db/wire.ts). */
    DATABASE_NAMED_STATEMENTS: z
      .enum(['true', 'false'])
      .default('true')
      .transform((value) => value === 'true'),
    IPN_RETRY_DELAY_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
    /** IPN attempts in flight (keep-alive connections) per destination. */
    IPN_DESTINATION_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
    /** Retention (docs/operations.md): finished IPN deliveries, bodies included, are deleted after these days. */
    IPN_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** Failed-login counts (usernames, client addresses) are deleted after these hours without a failure. */
    LOGIN_FAILURE_RETENTION_HOURS: z.coerce.number().int().min(1).max(8760).default(24),
    /** Sandbox SEPA debits: seconds from submission until the bank's answer (see docs/conformance.md, SEPA direct debit). */
    SEPA_SANDBOX_SETTLE_SECONDS: z.coerce.number().int().min(0).max(2_592_000).default(120),
    /** Sandbox vendor payouts: a folder the bank keeps each run's pain.001 file in (unset: none is kept). */
    PAYOUT_FILE_DIR: z.string().optional(),
    /** The sandbox payout bank's answer time. */
    PAYOUT_SANDBOX_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
    /** The account vendor payouts are paid from, as pain.001 files name it (default: a sandbox account). */
    PAYOUT_DEBTOR_NAME: z.string().min(1).max(140).optional(),
    PAYOUT_DEBTOR_IBAN: z
      .string()
      .regex(/^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{1,30}$/)
      .optional(),
    PAYOUT_DEBTOR_BIC: z
      .string()
      .regex(/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/)
      .optional(),
    /** The sandbox acquirer's answer time: a real processor takes hundreds of milliseconds. */
    SANDBOX_ACQUIRER_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
    /** A file the sandbox acquirer keeps its book in (appended), so it outlives core; unset: in memory. */
    SANDBOX_ACQUIRER_JOURNAL: z.string().optional(),
    /** How long an Adyen call may take before its outcome counts as unknown (shorter than the recovery delay). */
    ADYEN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(55_000).default(15_000),
    /** Payment attempts without an outcome this long are resolved by the recovery worker. */
    PAYMENT_RECOVERY_AFTER_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    /** Prometheus metrics at http://CORE_HOST:CORE_METRICS_PORT/metrics; unset: none served. */
    CORE_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /**
     * Production wallet tokens are verified against these roots (docs/wallets.md): Google's root signing keys as
     * Google publishes them (keys.json; unset: production Google Pay tokens are refused), and Apple's root
     * certificate(s) as PEM (unset: Apple Root CA - G3, which ships in wallets/roots).
     */
    GOOGLE_PAY_ROOT_KEYS_FILE: z.string().min(1).optional(),
    /** `CIDR,country` lines placing shoppers' IP addresses for the fraud rules' country check (docs/fraud.md). */
    FRAUD_IP_COUNTRIES_FILE: z.string().min(1).optional(),
    APPLE_PAY_ROOT_CERTIFICATES_FILE: z.string().min(1).optional(),
    /**
     * Apple Pay on the web sessions (docs/wallets.md): Paywire's merchant identifier at Apple, its merchant
     * identity certificate and key (PEM files), and a gateway URL that replaces the shoppers' validationURL
     * (unset: Apple's). No identifier: sessions are refused.
     */
    APPLE_PAY_MERCHANT_IDENTIFIER: z.string().min(1).max(255).optional(),
    APPLE_PAY_IDENTITY_CERTIFICATE_FILE: z.string().min(1).optional(),
    APPLE_PAY_IDENTITY_KEY_FILE: z.string().min(1).optional(),
    APPLE_PAY_GATEWAY_URL: z.url().optional(),
    /** Unset: allowed in sandbox mode, refused in live mode. */
    IPN_ALLOW_PRIVATE_TARGETS: z
      .enum(['true', 'false'])
      .optional()
      .transform((value) => (value === undefined ? undefined : value === 'true')),
  })
  .superRefine(checkKeyFields);

export type CoreEnv = z.output<typeof schema>;

export function loadCoreEnv(source: NodeJS.ProcessEnv = process.env): CoreEnv {
  return parseEnvironment(schema, source, 'core');
}

const keySchema = z.object(keyFields).superRefine(checkKeyFields);
export type KeyEnv = z.output<typeof keySchema>;

/** The keys' settings alone, for the CLIs (`npm run keys`, `npm run processor`). */
export function loadKeyEnv(source: NodeJS.ProcessEnv = process.env): KeyEnv {
  return parseEnvironment(keySchema, source, 'key');
}
