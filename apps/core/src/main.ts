import { createLogger, startTracing } from '@paywire/observability';
import { bootCore } from './boot.ts';
import { loadCoreEnv } from './env.ts';

/**
 * The core process: `node apps/core/src/main.ts`, in the role CORE_ROLE names. It never migrates: it stays
 * unready until `npm run migrate` (migrate.ts) has brought the database up to date.
 */
const env = loadCoreEnv();
const log = createLogger('core');
await startTracing('paywire-core'); // only with OTEL_EXPORTER_OTLP_ENDPOINT set
const core = await bootCore(env, log);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    core.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
