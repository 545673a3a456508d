import { createPaywireClient } from '@paywire/client';
import { createLogger, startTracing } from '@paywire/observability';
import { loadFacadeEnv } from './env.ts';
import { serveFacade } from './serve.ts';

/** The facade process: `node apps/facade/src/main.ts`. Stateless; talks to core only. */
const env = loadFacadeEnv();
const log = createLogger('facade');
await startTracing('paywire-facade'); // only with OTEL_EXPORTER_OTLP_ENDPOINT set
const core = createPaywireClient({ url: env.CORE_URL, credential: env.CORE_CREDENTIAL, maxSockets: 256 });
const http = await serveFacade(core, env, log);

// SIGTERM: readiness fails at once, requests already in flight finish (bounded by the grace period), then exit.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log.info({ signal, graceSeconds: env.SHUTDOWN_GRACE_SECONDS }, 'draining');
    void http
      .drain(env.SHUTDOWN_GRACE_SECONDS * 1000, env.SHUTDOWN_DELAY_SECONDS * 1000)
      .then(() => process.exit(0));
  });
}
