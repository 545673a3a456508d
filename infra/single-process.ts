import { createLocalPaywireClient } from '@paywire/client';
import { appRouter, bootCore, loadCoreEnv } from '@paywire/core';
import { loadFacadeEnv, serveFacade } from '@paywire/facade';
import { createLogger, startTracing } from '@paywire/observability';

/**
 * Facade and core in one process (`npm start`, the image's `paywire` role): the facade calls core's router
 * through tRPC's local link, with its own credential checked and each call's merchant, key and request id
 * in the context exactly as over HTTP, so no request pays for a second HTTP exchange. Core still listens on
 * CORE_PORT for internal callers and for its /readyz, which the facade's readiness follows. The split
 * deployment (a facade and a core process, scaled apart) stays the production topology (docs/operations.md).
 */
const coreEnv = loadCoreEnv();
if (coreEnv.CORE_ROLE === 'worker') {
  process.stderr.write('the single-process mode serves requests: CORE_ROLE must be both or api\n');
  process.exit(1);
}
const facadeEnv = loadFacadeEnv();
const log = createLogger('paywire');
await startTracing('paywire'); // only with OTEL_EXPORTER_OTLP_ENDPOINT set
const core = await bootCore(coreEnv, log.child({ component: 'core' }));
const { localContext } = core;
if (!localContext) throw new Error('core serves no procedures in this role');
const client = createLocalPaywireClient({
  router: appRouter,
  localContext,
  credential: facadeEnv.CORE_CREDENTIAL,
});
const http = await serveFacade(
  client,
  { ...facadeEnv, CORE_URL: core.url },
  log.child({ component: 'facade' }),
);

// SIGTERM: the facade drains first (readiness fails, requests in flight finish), then core (its jobs).
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, graceSeconds: facadeEnv.SHUTDOWN_GRACE_SECONDS }, 'draining');
    http
      .drain(facadeEnv.SHUTDOWN_GRACE_SECONDS * 1000, facadeEnv.SHUTDOWN_DELAY_SECONDS * 1000)
      .then(() => core.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  });
}
