import { createPaywireClient } from '@paywire/client';
import { type DrainableServer, drainable } from '@paywire/contracts';
import { createLogger, serveMetrics, startTracing } from '@paywire/observability';
import { TRPCClientError } from '@trpc/client';
import { createFacade } from './app.ts';
import { loadFacadeEnv } from './env.ts';
import { coreReadiness } from './http/health.ts';
import { facadeRegistry } from './metrics.ts';
import { listenFacade } from './server.ts';

/** The facade process: `node apps/facade/src/main.ts`. Stateless; talks to core only. */
const env = loadFacadeEnv();
const log = createLogger('facade');
await startTracing('paywire-facade'); // only with OTEL_EXPORTER_OTLP_ENDPOINT set
const core = createPaywireClient({ url: env.CORE_URL, credential: env.CORE_CREDENTIAL, maxSockets: 256 });
/** Core not there yet (not listening, or starting: 503): started together, the facade waits for it. */
const coreNotYetUp = (error: unknown) =>
  error instanceof TRPCClientError &&
  (error.data === undefined || (error.data as { httpStatus?: number }).httpStatus === 503);

// A credential core refuses, or one that cannot act for merchants, would fail every request: stop now.
async function verifyCredential() {
  for (let waited = false; ; waited = true) {
    try {
      return await core.callers.whoami.query();
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
const caller = await verifyCredential();
if (caller.scope !== 'any-merchant') {
  log.error({ scope: caller.scope }, 'CORE_CREDENTIAL must have the any-merchant scope');
  process.exit(1);
}
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

// SIGTERM: readiness fails at once, requests already in flight finish (bounded by the grace period), then exit.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log.info({ signal, graceSeconds: env.SHUTDOWN_GRACE_SECONDS }, 'draining');
    void http
      .drain(env.SHUTDOWN_GRACE_SECONDS * 1000, env.SHUTDOWN_DELAY_SECONDS * 1000)
      .then(() => process.exit(0));
  });
}
