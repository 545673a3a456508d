import { createPaywireClient } from '@paywire/client';
import { createLogger, serveMetrics, startTracing } from '@paywire/observability';
import { createFacade } from './app.ts';
import { loadFacadeEnv } from './env.ts';
import { facadeRegistry } from './metrics.ts';
import { listenFacade } from './server.ts';

/** The facade process: `node apps/facade/src/main.ts`. Stateless; talks to core only. */
const env = loadFacadeEnv();
const log = createLogger('facade');
await startTracing('paywire-facade'); // only with OTEL_EXPORTER_OTLP_ENDPOINT set
const core = createPaywireClient({ url: env.CORE_URL, credential: env.CORE_CREDENTIAL, maxSockets: 256 });
// A credential core refuses, or one that cannot act for merchants, would fail every request: stop now.
const caller = await core.callers.whoami.query().catch((error: unknown) => {
  log.error({ error }, 'could not verify CORE_CREDENTIAL with core');
  process.exit(1);
});
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
});
const server = await listenFacade(app, env.PORT, env.HOST);
log.info({ port: env.PORT, host: env.HOST, publicBaseUrl: app.context.publicBaseUrl }, 'listening');
if (env.METRICS_PORT !== undefined) await serveMetrics(facadeRegistry, env.METRICS_PORT, env.HOST);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
  });
}
