import { createFacade } from './app.ts';
import { createCoreClient } from './core-client.ts';
import { loadFacadeEnv } from './env.ts';
import { createLogger } from './log.ts';
import { listenFacade } from './server.ts';

/** The facade process: `node apps/facade/src/main.ts`. Stateless; talks to core only. */
const env = loadFacadeEnv();
const log = createLogger('facade');
const app = createFacade({
  core: createCoreClient(env.CORE_URL),
  log,
  xmlNamespace: env.XML_NAMESPACE,
  authCacheSeconds: env.AUTH_CACHE_SECONDS,
  logRequests: env.LOG_REQUESTS,
  ...(env.PUBLIC_BASE_URL ? { publicBaseUrl: env.PUBLIC_BASE_URL } : {}),
});
const server = await listenFacade(app, env.PORT, env.HOST);
log.info('listening', { port: env.PORT, host: env.HOST, publicBaseUrl: app.context.publicBaseUrl });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
  });
}
