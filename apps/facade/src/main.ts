import { createFacade } from './app.ts';
import { createCoreClient } from './core-client.ts';
import { loadFacadeEnv } from './env.ts';
import { createLogger } from './log.ts';

/** The facade process: `node apps/facade/src/main.ts`. Stateless; talks to core only. */
const env = loadFacadeEnv();
const log = createLogger('facade');
const app = createFacade({
  core: createCoreClient(env.CORE_URL),
  log,
  xmlNamespace: env.XML_NAMESPACE,
  authCacheSeconds: env.AUTH_CACHE_SECONDS,
  trustedProxyHops: env.TRUSTED_PROXY_HOPS,
  logRequests: env.LOG_REQUESTS,
});
const server = app.listen(env.PORT, env.HOST, () =>
  log.info('listening', { port: env.PORT, host: env.HOST }),
);
server.keepAliveTimeout = 65_000;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
  });
}
