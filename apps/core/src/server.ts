import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { DomainError, drainable, type IdempotentRequest, internalHeaders } from '@paywire/contracts';
import {
  childOnFirstLine,
  createLogger,
  extractTraceContext,
  type Logger,
  validRequestId,
} from '@paywire/observability';
import { TRPCError } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { type AchBank, type AchOriginator, sandboxAchBank, sandboxOriginator } from './ach/bank.ts';
import { type Caller, createCallerVerifier } from './callers/service.ts';
import { disputeTestCardSale } from './chargebacks/sandbox-card.ts';
import type { CoreServices, Mode, RequestContext } from './context.ts';
import { openDatabase } from './database.ts';
import { migrationsCurrent } from './db/orm.ts';
import { isDatabaseUnavailable } from './db/unavailable.ts';
import { databaseUnavailable, isExpected } from './errors.ts';
import { ipCountryLocator } from './fraud/ip-country.ts';
import { answerHealth, isHealthPath, type Lifecycle } from './health.ts';
import { describeJobError, startJobs } from './jobs/boss.ts';
import { fileKeyProvider, KeyConfigurationError, type KeyProvider } from './keys/provider.ts';
import { keyServices } from './keys/reencrypt.ts';
import { openKeyRing } from './keys/ring.ts';
import type { PayoutDebtor } from './marketplace/pain001.ts';
import { type PayoutBank, sandboxPayoutBank, sandboxPayoutDebtor } from './marketplace/payout-bank.ts';
import { LastKnownFacts } from './merchants/facts.ts';
import { sampleQueues } from './metrics.ts';
import { liveRefusal } from './processors/accounts/routing.ts';
import { authorisationLookup, technicalCancelLookup } from './processors/adyen/confirmations.ts';
import { createProcessorDirectory } from './processors/directory.ts';
import type { Processor } from './processors/processor.ts';
import { createSandboxProcessor, sandboxCardProfile } from './processors/sandbox/processor.ts';
import { cancelChargedSubscription } from './refunds/service.ts';
import { appRouter } from './router.ts';
import { callOrigin } from './security/audit/trail.ts';
import { createCardVault } from './security/card-vault.ts';
import { createPasswordGate } from './security/password-gate.ts';
import { productionCost, type ScryptCost } from './security/passwords.ts';
import { type SepaBank, sandboxSepaBank } from './sepa/bank.ts';
import { refusalEnvelope } from './trpc.ts';
import { type ApplePayGatewaySettings, applePayGateway } from './wallets/apple-pay-gateway.ts';
import { noWalletTrust, type WalletTrust } from './wallets/keys.ts';
import { type StartedWorker, workerStarters } from './workers.ts';

/** api: serves tRPC; worker: runs the background jobs (workers.ts); both: the two (npm start). */
export type CoreRole = 'api' | 'worker' | 'both';

export interface CoreOptions {
  databaseUrl: string;
  /** Default both. Every role serves /healthz and /readyz on its port. */
  role?: CoreRole;
  /** Drain on close(): how long in-flight requests and the current job batch may take (default 30 000 ms). */
  shutdownGraceMs?: number;
  /** Drain on close(): how long readiness fails before the listener closes (default 0). */
  shutdownDelayMs?: number;
  host?: string;
  port: number;
  mode: Mode;
  /**
   * The static secret of `v1`: the file provider's key-encryption key source (when `keyProvider` is unset),
   * and the legacy keys imported at the first start so `v1` values and fingerprints stay readable.
   */
  cardEncryptionKey?: Buffer | undefined;
  /** Holds the key-encryption key (default: the file provider over `cardEncryptionKey`). */
  keyProvider?: KeyProvider;
  /** How often every core re-reads the data keys (default 10 000 ms); a rotation's new key waits longer. */
  keyRefreshMs?: number;
  /** After a new key seals, how long before old keys nothing refers to are retired (default 60 s). */
  keyRetireAfterSeconds?: number;
  /** Values re-encrypted per transaction by the rotation job (default 200). */
  keyBatchSize?: number;
  /** `CIDR,country` lines placing shoppers' IP addresses for the fraud rules (default: the sandbox's alone). */
  ipCountryRanges?: string;
  /** The roots production wallet tokens are verified against (default: none, so every production token is refused). */
  walletTrust?: WalletTrust;
  /** Paywire's Apple Pay platform identity and gateway (default: none, so no Apple Pay session is asked for). */
  applePayGateway?: ApplePayGatewaySettings;
  poolSize?: number;
  /**
   * How long core waits for PostgreSQL to answer a statement, or for a connection, before giving the
   * connection up and the call a 503 (default 30 000 ms; docs/operations.md, Losing the database primary).
   */
  databaseAnswerTimeoutMs?: number;
  /**
   * How long a call waits for a connection while the database cannot be reached before it answers 503
   * (default 10 000 ms): a planned switchover costs calls a moment, not an error.
   */
  databaseOutageWaitMs?: number;
  /** False behind a PgBouncer in transaction mode that does not track prepared statements (db/wire.ts). */
  databaseNamedStatements?: boolean;
  /** The sandbox connector (default: one answering at once, its book in memory). */
  sandbox?: Processor;
  /** How long an Adyen call may take before its outcome counts as unknown (default 15 000 ms). */
  adyenTimeoutMs?: number;
  /** Every Adyen account's Checkout base URL instead of Adyen's (tests: a fake Adyen on 127.0.0.1). */
  adyenEndpoint?: string;
  /** Payment attempts without an outcome this long (default 60 s) are resolved by the recovery worker. */
  paymentRecoveryAfterSeconds?: number;
  /** IPN retries: the first delay in seconds (default 300); private targets (default: sandbox only). */
  ipnRetryDelaySeconds?: number;
  ipnAllowPrivateTargets?: boolean;
  /** Per delivery attempt, default 10 000 ms (see docs/conformance.md, IPN delivery). */
  ipnTimeoutMs?: number;
  /** IPN attempts in flight per destination (default 16); a destination's circuit: first pause (10 s). */
  ipnDestinationConcurrency?: number;
  ipnBreakerPauseMs?: number;
  /** Sandbox SEPA debits: seconds until the bank answers (default 120); the bank (default: the sandbox's). */
  sepaSandboxSettleSeconds?: number;
  sepaBank?: SepaBank;
  /** The bank that pays vendors (default: the sandbox's, keeping nothing), and the account it pays from. */
  payoutBank?: PayoutBank;
  payoutDebtor?: PayoutDebtor;
  /** The bank ACH debits' NACHA files go to (default: the sandbox's), and who originates them. */
  achBank?: AchBank;
  achOriginator?: AchOriginator;
  /** Finished IPN deliveries are deleted after this many days (default 30). */
  ipnDeliveryRetentionDays?: number;
  /** Failed-login counts are deleted after this many hours without a failure (default 24). */
  loginFailureRetentionHours?: number;
  /** Where core logs (default: JSON lines on stdout). */
  log?: Logger;
  /** Tests only: a cheaper scrypt cost for merchant passwords. main.ts never sets it. */
  passwordCost?: ScryptCost;
}

export interface RunningCore {
  /** The tRPC endpoint, e.g. http://127.0.0.1:8081/trpc */
  url: string;
  services: CoreServices;
  /**
   * A call's context for a caller in this process (the single-process mode's facade), from the headers the
   * HTTP client would send: authenticated and scoped exactly as a call over HTTP. Throws a TRPCError when the
   * call is refused. Absent for a worker-role core.
   */
  localContext?: (headers: IncomingHttpHeaders) => Promise<RequestContext>;
  /** Drains: readiness fails, no new connection, in-flight requests and jobs finish within the grace period. */
  close(): Promise<void>;
}

function merchantOf(headers: IncomingHttpHeaders): number | null {
  const value = headers[internalHeaders.merchant];
  return typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : null;
}

function idempotencyOf(headers: IncomingHttpHeaders): IdempotentRequest | null {
  const key = headers[internalHeaders.idempotencyKey];
  const fingerprint = headers[internalHeaders.fingerprint];
  if (typeof key !== 'string') return null;
  return typeof fingerprint === 'string' ? { key, fingerprint } : { key };
}

const basePath = '/trpc/';

/** The tRPC code of a call refused before tRPC reads it: the catalogue's names for these two are tRPC's too. */
const refusalCode = (refusal: DomainError) =>
  refusal.errorName === 'UNAUTHORIZED' || refusal.errorName === 'FORBIDDEN'
    ? refusal.errorName
    : 'INTERNAL_SERVER_ERROR';

function refuse(request: IncomingMessage, response: ServerResponse, refusal: DomainError): void {
  const code = refusalCode(refusal);
  const path = new URL(request.url ?? '/', 'http://core').pathname.slice(basePath.length);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (code === 'UNAUTHORIZED') headers['www-authenticate'] = 'Bearer';
  response.writeHead(refusal.status, headers).end(JSON.stringify(refusalEnvelope(refusal, code, path)));
}

/** A refusal thrown to an in-process caller: the same code and body as the HTTP answer's. */
function refusalError(refusal: DomainError): TRPCError {
  return new TRPCError({ code: refusalCode(refusal), message: refusal.message, cause: refusal });
}

const unauthenticated = new DomainError(
  'UNAUTHORIZED',
  'a valid caller credential is required (Authorization: Bearer pwc_...)',
);
const boundElsewhere = new DomainError('FORBIDDEN', 'this credential acts for its own merchant only');

/**
 * The merchant a call acts for: the one an any-merchant caller (the facade) names; a bound credential's
 * own, which a header naming another merchant may not change.
 */
function actingMerchant(caller: Caller, headers: IncomingHttpHeaders): number | null | typeof boundElsewhere {
  const named = merchantOf(headers);
  if (caller.scope === 'any-merchant') return named;
  if (caller.merchantId === null) return null; // admin: acts for no merchant, whatever a header says
  if (headers[internalHeaders.merchant] !== undefined && named !== caller.merchantId) return boundElsewhere;
  return caller.merchantId;
}

const notYet = new DomainError(
  'SERVICE_UNAVAILABLE',
  'core is starting (migrations pending or jobs starting); retry shortly',
);
const noProcedures = new DomainError('RESOURCE_NOT_FOUND', 'a worker-role core serves no procedures');

/** Resolves once every committed migration is applied (`npm run migrate` may be running alongside). */
async function untilMigrated(orm: MikroORM, log: Logger): Promise<void> {
  let told = false;
  while (!(await migrationsCurrent(orm))) {
    if (!told) log.warn('waiting for migrations: run npm run migrate');
    told = true;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/**
 * Opens the database, serves health at once, waits until the database is migrated, then starts pg-boss, the
 * role's workers and (api role) the tRPC router over HTTP.
 */
export async function startCore(options: CoreOptions): Promise<RunningCore> {
  const log = options.log ?? createLogger('core');
  const role = options.role ?? 'both';
  const answerTimeoutMs = options.databaseAnswerTimeoutMs ?? 30_000;
  const orm: MikroORM = await openDatabase(options.databaseUrl, options.poolSize ?? 16, {
    answerTimeoutMs,
    outageWaitMs: options.databaseOutageWaitMs ?? 10_000,
    namedStatements: options.databaseNamedStatements ?? true,
  });
  const lifecycle: Lifecycle = { started: false, draining: () => http.draining, orm };
  let serve: (request: IncomingMessage, response: ServerResponse) => void = (request, response) =>
    refuse(request, response, notYet);
  const server: Server = createServer((request, response) => {
    if (isHealthPath(request.url)) return answerHealth(request, response, lifecycle);
    serve(request, response);
  });
  const http = drainable(server);
  server.keepAliveTimeout = 65_000; // longer than the facade's idle sockets live, so reuse never races a close
  await new Promise<void>((resolve) => server.listen(options.port, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  await untilMigrated(orm, log);
  // The keys before anything else: a wrong key or PIN refuses to start here, not with a 500 per request.
  const opened = await openKeys(orm, options).catch(async (error: unknown) => {
    server.closeAllConnections(); // health probes' keep-alive sockets must not hold the refusal up
    await new Promise((resolve) => server.close(resolve));
    await orm.close();
    throw error;
  });
  if (options.mode === 'live') {
    const refusal = await liveRefusal(orm.em.fork());
    if (refusal) throw new Error(`live mode refuses to start: ${refusal}`);
  }
  const worker = role !== 'api';
  const jobs = await startJobs(
    options.databaseUrl,
    (error) => log.error(describeJobError(error), 'job runner error'),
    { worker, answerTimeoutMs },
  );
  const { vault, keys } = opened;
  const keyRefresh = setInterval(() => {
    keys.refresh().catch((error: unknown) => log.error({ error }, 'data key refresh failed'));
  }, options.keyRefreshMs ?? 10_000);
  keyRefresh.unref();
  const recoveryAfterSeconds = options.paymentRecoveryAfterSeconds ?? 60;
  // An authorization may take a call, its repeat, a technical cancel and the wait for its confirmation at
  // one account before recovery may touch it: each step gets at most a quarter of the recovery delay.
  const configuredAdyenTimeoutMs = options.adyenTimeoutMs ?? 15_000;
  const adyenTimeoutMs = Math.min(configuredAdyenTimeoutMs, Math.floor((recoveryAfterSeconds * 1000) / 4));
  if (adyenTimeoutMs < configuredAdyenTimeoutMs) {
    log.warn(
      { adyenTimeoutMs, recoveryAfterSeconds },
      'Adyen calls cut to a quarter of the payment recovery delay',
    );
  }
  const services: CoreServices = {
    orm,
    jobs,
    processors: createProcessorDirectory({
      vault,
      mode: options.mode,
      sandbox: options.sandbox ?? createSandboxProcessor(),
      adyenTimeoutMs,
      adyenEndpoint: options.adyenEndpoint,
      technicalCancels: technicalCancelLookup(orm.em),
      authorisations: authorisationLookup(orm.em),
      // a technical cancel's confirmation is one more step of the call: the same budget as each request
      technicalCancelWaitMs: adyenTimeoutMs,
    }),
    cardProfile: sandboxCardProfile,
    ipCountry: ipCountryLocator(options.ipCountryRanges),
    vault,
    walletTrust: options.walletTrust ?? noWalletTrust,
    applePay: applePayGateway(options.applePayGateway ?? {}),
    keys,
    passwords: createPasswordGate(),
    passwordCost: options.passwordCost ?? productionCost,
    mode: options.mode,
    lastKnownFacts: new LastKnownFacts(),
    afterCardSale: disputeTestCardSale,
    afterRefundDone: cancelChargedSubscription,
    ipn: {
      retryDelaySeconds: options.ipnRetryDelaySeconds ?? 300,
      allowPrivateTargets: options.ipnAllowPrivateTargets ?? options.mode === 'sandbox',
      timeoutMs: options.ipnTimeoutMs ?? 10_000,
      connectionsPerDestination: options.ipnDestinationConcurrency ?? 16,
      breaker: { failures: 5, pauseMs: options.ipnBreakerPauseMs ?? 10_000, maxPauseMs: 300_000 },
    },
    sepa: {
      bank: options.sepaBank ?? sandboxSepaBank,
      ach: {
        bank: options.achBank ?? sandboxAchBank,
        originator: options.achOriginator ?? sandboxOriginator,
      },
      sandboxSettleSeconds: options.sepaSandboxSettleSeconds ?? 120,
    },
    payouts: {
      bank: options.payoutBank ?? sandboxPayoutBank(),
      debtor: options.payoutDebtor ?? sandboxPayoutDebtor,
    },
    payments: { recoveryAfterSeconds },
    retention: {
      ipnDeliveryDays: options.ipnDeliveryRetentionDays ?? 30,
      loginFailureHours: options.loginFailureRetentionHours ?? 24,
    },
  };
  const workers: (StartedWorker | undefined)[] = worker
    ? await Promise.all(workerStarters.map((start) => start(services, log)))
    : [];
  const calls = role === 'worker' ? undefined : procedures(services, orm, log);
  serve = calls ? calls.serve : (request, response) => refuse(request, response, noProcedures);
  const stopSampling = sampleQueues(() => orm.em.fork(), jobs);
  lifecycle.started = true;

  const shutdownGraceMs = options.shutdownGraceMs ?? 30_000;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/trpc`,
    services,
    ...(calls ? { localContext: calls.localContext } : {}),
    async close() {
      const deadline = Date.now() + shutdownGraceMs;
      await http.drain(shutdownGraceMs, options.shutdownDelayMs ?? 0);
      stopSampling();
      clearInterval(keyRefresh);
      await Promise.all(workers.map((started) => started?.stop()));
      await jobs.stop({ graceful: true, timeout: Math.max(1000, deadline - Date.now()) });
      await orm.close();
      await keys.provider.close();
    },
  };
}

/** The provider, the key ring (checked) and the vault over it; a KeyConfigurationError refuses to start. */
async function openKeys(orm: MikroORM, options: CoreOptions) {
  let provider = options.keyProvider;
  if (!provider) {
    if (!options.cardEncryptionKey)
      throw new KeyConfigurationError('the file key provider needs CARD_ENCRYPTION_KEY (32 bytes, base64)');
    provider = fileKeyProvider(options.cardEncryptionKey);
  }
  const ring = await openKeyRing(orm.em.fork(), provider, options.cardEncryptionKey);
  const vault = createCardVault(ring);
  const keys = keyServices(orm, provider, vault, {
    retireAfterSeconds: options.keyRetireAfterSeconds ?? 60,
    // every core refreshes its keys within this (docs/keys.md): a new key is current only then
    activateAfterSeconds: Math.ceil((3 * (options.keyRefreshMs ?? 10_000)) / 1000),
    batchSize: options.keyBatchSize ?? 200,
  });
  return { vault, keys };
}

/** What authentication proved of a call: who calls, and for which merchant. */
interface AuthorizedCall {
  caller: Caller;
  merchantId: number | null;
}

/**
 * How calls reach the router, one authentication and one context for both ways in: over HTTP (the
 * standalone handler; no credential, no procedure, whatever the path) and from this process (localContext).
 */
function procedures(services: CoreServices, orm: MikroORM, log: Logger) {
  const verifyCaller = createCallerVerifier(orm);
  /** The caller and merchant of a call's headers, or why it is refused. */
  const authorize = async (headers: IncomingHttpHeaders): Promise<AuthorizedCall | DomainError> => {
    const caller = await verifyCaller(headers.authorization);
    if (!caller) return unauthenticated;
    const merchantId = actingMerchant(caller, headers);
    return merchantId instanceof DomainError ? merchantId : { caller, merchantId };
  };
  const contextFor = (headers: IncomingHttpHeaders, call: AuthorizedCall): RequestContext => {
    const requestId = validRequestId(headers[internalHeaders.requestId]) ?? undefined;
    const clientAddress = headers[internalHeaders.clientAddress];
    return {
      ...services,
      ...call,
      origin: callOrigin(
        call.caller,
        call.merchantId,
        typeof clientAddress === 'string' ? clientAddress.slice(0, 100) : undefined,
        requestId,
      ),
      em: orm.em.fork(),
      idempotency: idempotencyOf(headers),
      memo: {},
      requestId,
      log: childOnFirstLine(log, { requestId }),
      traceParent: extractTraceContext(headers),
    };
  };
  /** What the first step proved of each request, for its context. */
  const authorized = new WeakMap<IncomingMessage, AuthorizedCall>();
  const handleCall = createHTTPHandler({
    router: appRouter,
    basePath,
    // a chargeback's evidence file travels base64: 9 MB (chargebacks/evidence.ts) is 12 MB of text
    maxBodySize: 13 * 1024 * 1024,
    createContext: ({ req }): RequestContext => {
      const call = authorized.get(req);
      if (!call) throw new Error('a call reached tRPC unauthenticated'); // cannot happen: see serve below
      return contextFor(req.headers, call);
    },
    onError: ({ error, path, ctx }) => {
      if (isDatabaseUnavailable(error.cause)) {
        // one cause for every call while it lasts: the message, not a stack per call
        (ctx?.log ?? log).warn(
          { procedure: path, reason: (error.cause as Error).message },
          'database unavailable',
        );
      } else if (!isExpected(error) && error.code !== 'UNAUTHORIZED' && error.code !== 'NOT_FOUND') {
        const cause = error.cause instanceof Error ? error.cause : error;
        (ctx?.log ?? log).error({ procedure: path, code: error.code, error: cause }, 'procedure failed');
      } else if (error.cause instanceof DomainError && error.cause.cause instanceof Error) {
        // an expected answer with a cause worth an operator's look (a processor that did not answer)
        (ctx?.log ?? log).warn({ procedure: path, error: error.cause.cause }, error.cause.message);
      }
    },
  });
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    authorize(request.headers).then(
      (call) => {
        if (call instanceof DomainError) return refuse(request, response, call);
        authorized.set(request, call);
        handleCall(request, response);
      },
      (error: unknown) => {
        if (isDatabaseUnavailable(error)) return refuse(request, response, databaseUnavailable());
        log.error({ error }, 'caller verification failed');
        refuse(
          request,
          response,
          new DomainError('INTERNAL_ERROR', 'an unexpected error occurred; it has been logged'),
        );
      },
    );
  };
  const localContext = async (headers: IncomingHttpHeaders): Promise<RequestContext> => {
    const call = await authorize(headers).catch((error: unknown) => {
      throw isDatabaseUnavailable(error) ? databaseUnavailable() : error;
    });
    if (call instanceof DomainError) throw refusalError(call);
    return contextFor(headers, call);
  };
  return { serve, localContext };
}
