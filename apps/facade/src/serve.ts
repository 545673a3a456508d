import type { PaywireClient } from '@paywire/client';
import { type DrainableServer, drainable } from '@paywire/contracts';
import { type Logger, serveMetrics } from '@paywire/observability';
import { TRPCClientError } from '@trpc/client';
import { createFacade } from './app.ts';
import type { FacadeEnv } from './env.ts';
import { coreReadiness } from './http/health.ts';
import { facadeRegistry } from './metrics.ts';
import { listenFacade } from './server.ts';

/** Core not there yet (not listening, or starting: 503): started together, the facade waits for it. */
const coreNotYetUp = (error: unknown) =>
  error instanceof TRPCClientError &&
  (error.data === undefined || (error.data as { httpStatus?: number }).httpStatus === 503);

/**
 * A credential core refuses, or one that cannot act for merchants, would fail every request: the process
 * stops here instead.
 */
async function verifyCredential(core: PaywireClient, env: FacadeEnv, log: Logger): Promise<void> {
  for (let waited = false; ; waited = true) {
    try {
      const caller = await core.callers.whoami.query();
      if (caller.scope === 'any-merchant') return;
      log.error({ scope: caller.scope }, 'CORE_CREDENTIAL must have the any-merchant scope');
      process.exit(1);
    } catch (error) {
      if (!coreNotYetUp(error)) {
        log.error({ error }, 'could not verify CORE_CREDENTIAL with core');
        process.exit(1);
      }
      if (!waited) log.info({ coreUrl: env.CORE_URL }, 'waiting for core');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/**
 * The facade over a core client (over HTTP, or in-process in the single-process mode), listening, with its
 * metrics served when asked: what the facade process (main.ts) and the single-process mode both run.
 * Readiness follows core's /readyz at CORE_URL in both.
 */
export async function serveFacade(
  core: PaywireClient,
  env: FacadeEnv,
  log: Logger,
): Promise<DrainableServer> {
  await verifyCredential(core, env, log);
  const app = createFacade({
    core,
    log,
    xmlNamespace: env.XML_NAMESPACE,
    authCacheSeconds: env.AUTH_CACHE_SECONDS,
    trustedProxyHops: env.TRUSTED_PROXY_HOPS,
    logRequests: env.LOG_REQUESTS,
    ...(env.PUBLIC_BASE_URL ? { publicBaseUrl: env.PUBLIC_BASE_URL } : {}),
    readiness: coreReadiness(env.CORE_URL, () => http.draining), // http: assigned before any request
  });
  const server = await listenFacade(app, env.PORT, env.HOST);
  const http: DrainableServer = drainable(server);
  log.info({ port: env.PORT, host: env.HOST, publicBaseUrl: app.context.publicBaseUrl }, 'listening');
  if (env.METRICS_PORT !== undefined) await serveMetrics(facadeRegistry, env.METRICS_PORT, env.HOST);
  return http;
}
