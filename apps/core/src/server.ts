import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { type IdempotentRequest, internalHeaders } from '@paywire/contracts';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import type { Acquirer } from './cards/acquirer.ts';
import { sandboxAcquirer } from './cards/sandbox-acquirer.ts';
import type { CallContext, CoreServices, Mode } from './context.ts';
import { openDatabase } from './db/orm.ts';
import { isExpected } from './errors.ts';
import { scheduleSweep } from './idempotency/sweep.ts';
import { startDeliveryWorkers } from './ipn/delivery.ts';
import { startJobs } from './jobs/boss.ts';
import { appRouter } from './router.ts';
import { createCardVault } from './security/card-vault.ts';
import { createPasswordGate } from './security/password-gate.ts';
import { type SepaBank, sandboxSepaBank } from './sepa/bank.ts';
import { startSettlementWorkers } from './sepa/settlement.ts';

export interface CoreOptions {
  databaseUrl: string;
  host?: string;
  port: number;
  mode: Mode;
  cardEncryptionKey: Buffer;
  poolSize?: number;
  acquirer?: Acquirer;
  /** IPN retries: the first delay in seconds (default 300); private targets (default: sandbox only). */
  ipnRetryDelaySeconds?: number;
  ipnAllowPrivateTargets?: boolean;
  /** Per delivery attempt, default 10 000 ms (decisions.md). */
  ipnTimeoutMs?: number;
  /** Sandbox SEPA debits: seconds until the bank answers (default 120); the bank (default: the sandbox's). */
  sepaSandboxSettleSeconds?: number;
  sepaBank?: SepaBank;
  logError?: (message: string, fields: Record<string, unknown>) => void;
}

export interface RunningCore {
  /** The tRPC endpoint, e.g. http://127.0.0.1:8081/trpc */
  url: string;
  services: CoreServices;
  close(): Promise<void>;
}

function merchantOf(request: IncomingMessage): number | null {
  const value = request.headers[internalHeaders.merchant];
  return typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : null;
}

function idempotencyOf(request: IncomingMessage): IdempotentRequest | null {
  const key = request.headers[internalHeaders.idempotencyKey];
  const fingerprint = request.headers[internalHeaders.fingerprint];
  if (typeof key !== 'string') return null;
  return typeof fingerprint === 'string' ? { key, fingerprint } : { key };
}

const defaultLogError = (message: string, fields: Record<string, unknown>) =>
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'error', service: 'core', message, ...fields })}\n`,
  );

/** Opens the database (already migrated), starts the job runner, and serves the tRPC router over HTTP. */
export async function startCore(options: CoreOptions): Promise<RunningCore> {
  const logError = options.logError ?? defaultLogError;
  const orm: MikroORM = await openDatabase(options.databaseUrl, options.poolSize ?? 16);
  const jobs = await startJobs(options.databaseUrl, (error) =>
    logError('job runner error', { error: String(error) }),
  );
  const services = {
    orm,
    jobs,
    acquirer: options.acquirer ?? sandboxAcquirer,
    vault: createCardVault(options.cardEncryptionKey),
    passwords: createPasswordGate(),
    mode: options.mode,
    ipn: {
      retryDelaySeconds: options.ipnRetryDelaySeconds ?? 300,
      allowPrivateTargets: options.ipnAllowPrivateTargets ?? options.mode === 'sandbox',
      timeoutMs: options.ipnTimeoutMs ?? 10_000,
    },
    sepa: {
      bank: options.sepaBank ?? sandboxSepaBank,
      sandboxSettleSeconds: options.sepaSandboxSettleSeconds ?? 120,
    },
  };
  await scheduleSweep(jobs, () => orm.em.fork(), services.mode);
  await startDeliveryWorkers(jobs, () => orm.em.fork(), services.ipn);
  await startSettlementWorkers(services, (error) =>
    logError('SEPA settlement failed', { error: error instanceof Error ? error.message : String(error) }),
  );
  const server: Server = createHTTPServer({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: 2 * 1024 * 1024,
    createContext: ({ req }): CallContext => ({
      ...services,
      em: orm.em.fork(),
      merchantId: merchantOf(req),
      idempotency: idempotencyOf(req),
      memo: {},
    }),
    onError: ({ error, path }) => {
      if (!isExpected(error) && error.code !== 'UNAUTHORIZED' && error.code !== 'NOT_FOUND') {
        const cause = error.cause instanceof Error ? error.cause : error;
        logError('procedure failed', {
          path,
          code: error.code,
          error: cause.name,
          detail: cause.message,
          stack: cause.stack,
        });
      }
    },
  });
  server.keepAliveTimeout = 65_000; // longer than the facade's idle sockets live, so reuse never races a close
  await new Promise<void>((resolve) => server.listen(options.port, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/trpc`,
    services,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await jobs.stop({ graceful: true, timeout: 5000 });
      await orm.close();
    },
  };
}
