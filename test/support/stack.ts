import { randomBytes } from 'node:crypto';
import { createPaywireClient } from '@paywire/client';
import type { IssueCallerInput } from '@paywire/contracts';
import {
  type CoreOptions,
  type Processor,
  parseGoogleRootKeys,
  parsePemCertificates,
  type RunningCore,
  type ScryptCost,
  startCore,
} from '@paywire/core';
import { createFacade, listenFacade } from '@paywire/facade';
import { createLogger } from '@paywire/observability';
import pg from 'pg';
import { inject } from 'vitest';
import { issueCaller } from '../../infra/callers.ts';
import { migrateDatabase } from '../../infra/database.ts';
import { saveMerchant } from '../../infra/merchants.ts';
import { serverAt } from '../../infra/postgres.ts';
import { keepForFailures } from './failure-logs.ts';
import { throughPgBouncer } from './pgbouncer.ts';
import { testWalletTrustFiles } from './wallet-tokens.ts';

export interface TestMerchant {
  id: number;
  username: string;
  password: string;
  authorization: string;
}

export interface Stack {
  /** e.g. http://127.0.0.1:41234/services/2 */
  baseUrl: string;
  databaseUrl: string;
  core: RunningCore;
  /** The options core was started with (database, mode, card key...): a second core can share them. */
  coreOptions: CoreOptions;
  merchant: TestMerchant;
  newMerchant(): Promise<TestMerchant>;
  /** The facade's caller credential (any-merchant scope), for calling core directly as the facade does. */
  facadeCredential: string;
  /** A new caller credential of any scope on the file's database (`pwc_...`). */
  issueCredential(input: IssueCallerInput): Promise<string>;
  /** A small pool on the file's database, for reading (and setting up) rows directly. */
  db: pg.Pool;
  /** Every line the facade and core logged during the file's tests. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * What an operator CLI (caller, processor, keys, wallet-keys) needs to act through the stack's core: its tRPC
 * URL and a fresh admin credential. No DATABASE_URL: database access is not what they use.
 */
export async function operatorCliEnv(stack: Stack): Promise<Record<string, string>> {
  const name = `operator-${randomBytes(4).toString('hex')}`;
  return {
    CORE_URL: stack.core.url,
    PAYWIRE_ADMIN_CREDENTIAL: await stack.issueCredential({ name, scope: 'admin' }),
  };
}

/** A database of its own on the run's PostgreSQL, migrated. */
export async function newDatabase(
  prefix = 'paywire',
  adminUrl = inject('postgresAdminUrl'),
): Promise<string> {
  const server = serverAt(adminUrl);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await server.ensureDatabase(name);
  const databaseUrl = server.databaseUrl(name);
  await migrateDatabase(databaseUrl);
  return databaseUrl;
}

/**
 * Core's app role on a migrated database (docs/security.md, Database roles): a new login role owning nothing,
 * given its grants by a migration run as the owner, as `npm run migrate` with DATABASE_APP_ROLE does. Its URL.
 */
export async function appRoleUrl(
  databaseUrl: string,
  adminUrl = inject('postgresAdminUrl'),
): Promise<string> {
  const role = `paywire_app_${randomBytes(4).toString('hex')}`;
  const name = new URL(databaseUrl).pathname.slice(1);
  const url = await serverAt(adminUrl).ensureLoginRole(role, randomBytes(18).toString('base64url'), name);
  await migrateDatabase(databaseUrl, role);
  return url;
}

/**
 * What test merchants' passwords are hashed at: scrypt N=2^10 instead of production's 2^17 (128 MiB and
 * hundreds of milliseconds each), so a suite of hundreds of merchants stays fast. Core gets the same cost.
 */
export const testPasswordCost: ScryptCost = { N: 2 ** 10, r: 8, p: 1 };

/** A merchant with random Basic credentials. */
export async function newMerchant(databaseUrl: string): Promise<TestMerchant> {
  const username = `merchant_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('base64url');
  const id = await saveMerchant(databaseUrl, username, password, testPasswordCost);
  return {
    id,
    username,
    password,
    authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
  };
}

/** How many shoppers, vaulted cards and card transactions a merchant has: what a sale may have written. */
export async function paymentRowCounts(db: pg.Pool, merchant: TestMerchant) {
  const { rows } = await db.query<{ shoppers: number; cards: number; transactions: number }>(
    `select (select count(*) from shopper where merchant_id = $1)::int as shoppers,
            (select count(*) from stored_card where merchant_id = $1)::int as cards,
            (select count(*) from card_transaction where merchant_id = $1)::int as transactions`,
    [merchant.id],
  );
  return rows[0];
}

/** A facade credential (any-merchant scope) on the database, as `npm start` issues one. */
export function newFacadeCredential(databaseUrl: string): Promise<string> {
  return issueCaller(databaseUrl, { name: 'facade', scope: 'any-merchant' });
}

export interface TestFacade {
  /** e.g. http://127.0.0.1:41234/services/2 */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * The facade in this process on a real port, calling core at coreUrl with the credential; log lines go to
 * `log`. Served by listenFacade, as main.ts serves it; its links are on its real address, http://127.0.0.1:PORT.
 */
export async function startFacade(
  coreUrl: string,
  credential: string,
  log?: (line: string) => void,
  options: { trustedProxyHops?: number } = {},
): Promise<TestFacade> {
  const facade = createFacade({
    core: createPaywireClient({ url: coreUrl, credential, maxSockets: 256 }),
    log: createLogger('facade', log ?? (() => {})),
    xmlNamespace: 'http://ws.plimus.com',
    authCacheSeconds: 60,
    ...options,
    logRequests: log !== undefined,
  });
  const http = await listenFacade(facade, 0, '127.0.0.1');
  return {
    baseUrl: `${facade.context.publicBaseUrl}/services/2`,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

/**
 * The whole service for one test file: its own database on the run's PostgreSQL, migrated; core and
 * facade in this process but on real HTTP ports, talking over real tRPC with the facade's own caller
 * credential; one merchant ready.
 */
export async function startStack(
  options: {
    mode?: 'sandbox' | 'live';
    sandbox?: Processor;
    /** Every Adyen account's endpoint (a fake Adyen): what a live-mode stack's accounts reach. */
    adyenEndpoint?: string;
    adyenTimeoutMs?: number;
    postgresAdminUrl?: string;
    /** Core reaches the database through this PgBouncer (a test's own pooler) rather than the run's. */
    pgbouncerPort?: number;
    paymentRecoveryAfterSeconds?: number;
    databaseAnswerTimeoutMs?: number;
    /** The key provider (default: the file provider over a fresh CARD_ENCRYPTION_KEY). */
    keyProvider?: CoreOptions['keyProvider'];
    keyRefreshMs?: number;
    keyRetireAfterSeconds?: number;
    /** The bank SEPA settlement presents debits to (default: the sandbox's). */
    sepaBank?: CoreOptions['sepaBank'];
    /** The bank vendor payouts are paid through (default: the sandbox's, keeping nothing). */
    payoutBank?: CoreOptions['payoutBank'];
    /** The bank ACH debits' NACHA files go to (default: the sandbox's). */
    achBank?: CoreOptions['achBank'];
    /** Core connects as an app role with only its grants (the stack's `db` stays the owner's). */
    appRole?: boolean;
    /** Paywire's Apple Pay platform identity and the gateway its sessions go to (a fake Apple gateway). */
    applePayGateway?: CoreOptions['applePayGateway'];
  } = {},
): Promise<Stack> {
  const databaseUrl = await newDatabase('paywire', options.postgresAdminUrl);
  // Core reaches the run's PostgreSQL through PgBouncer in transaction mode, as deployed (support/pgbouncer.ts);
  // its own least-privilege role, and a server of a test's own, directly.
  const pgbouncerPort =
    options.pgbouncerPort ??
    (options.postgresAdminUrl || options.appRole ? undefined : inject('pgbouncerPort'));
  const coreDatabaseUrl = options.appRole
    ? await appRoleUrl(databaseUrl, options.postgresAdminUrl)
    : pgbouncerPort
      ? throughPgBouncer(databaseUrl, pgbouncerPort)
      : databaseUrl;
  const logs: string[] = [];
  const walletFiles = testWalletTrustFiles();
  const coreOptions: CoreOptions = {
    databaseUrl: coreDatabaseUrl,
    port: 0,
    mode: options.mode ?? 'sandbox',
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.adyenEndpoint ? { adyenEndpoint: options.adyenEndpoint } : {}),
    ...(options.adyenTimeoutMs ? { adyenTimeoutMs: options.adyenTimeoutMs } : {}),
    ...(options.paymentRecoveryAfterSeconds
      ? { paymentRecoveryAfterSeconds: options.paymentRecoveryAfterSeconds }
      : {}),
    cardEncryptionKey: randomBytes(32),
    // The test run's own Google root signing key and Apple root (wallet-tokens.ts), read as main.ts reads files.
    walletTrust: {
      googleRootKeys: parseGoogleRootKeys(walletFiles.googleRootKeys),
      appleRootCertificates: parsePemCertificates(walletFiles.appleRootCertificates),
    },
    ...(options.databaseAnswerTimeoutMs ? { databaseAnswerTimeoutMs: options.databaseAnswerTimeoutMs } : {}),
    ...(options.keyProvider ? { keyProvider: options.keyProvider } : {}),
    ...(options.sepaBank ? { sepaBank: options.sepaBank } : {}),
    ...(options.payoutBank ? { payoutBank: options.payoutBank } : {}),
    ...(options.achBank ? { achBank: options.achBank } : {}),
    ...(options.applePayGateway ? { applePayGateway: options.applePayGateway } : {}),
    ...(options.keyRefreshMs ? { keyRefreshMs: options.keyRefreshMs } : {}),
    ...(options.keyRetireAfterSeconds !== undefined
      ? { keyRetireAfterSeconds: options.keyRetireAfterSeconds }
      : {}),
    poolSize: 8,
    databaseNamedStatements: pgbouncerPort === undefined,
    ipnRetryDelaySeconds: 1,
    passwordCost: testPasswordCost,
    log: createLogger('core', (line) => logs.push(line), 'debug'), // its call lines too
  };
  const core = await startCore(coreOptions);
  const facadeCredential = await newFacadeCredential(databaseUrl);
  const facade = await startFacade(core.url, facadeCredential, (line) => logs.push(line));
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const forget = keepForFailures(logs);
  return {
    baseUrl: facade.baseUrl,
    databaseUrl,
    core,
    coreOptions,
    db,
    merchant: await newMerchant(databaseUrl),
    newMerchant: () => newMerchant(databaseUrl),
    facadeCredential,
    issueCredential: (input) => issueCaller(databaseUrl, input),
    logs,
    async close() {
      await facade.close();
      await core.close();
      await db.end();
      forget();
    },
  };
}
