import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@paywire/observability';
import { replaceFacadeCredential } from './callers.ts';
import { cardEncryptionKey } from './card-key.ts';
import { migrateDatabase, provideDatabase } from './database.ts';
import { loadLauncherEnv } from './launcher-env.ts';
import { ensureSampleCatalogue, saveMerchant } from './merchants.ts';

/**
 * npm start: PostgreSQL (embedded unless DATABASE_URL is set), migrations, the sandbox merchant, then core
 * and facade as two processes. Ctrl-C or SIGTERM stops all of it.
 */
const env = loadLauncherEnv();
const log = createLogger('launcher');

const { server, databaseUrl } = await provideDatabase(env);
const applied = await migrateDatabase(databaseUrl);
if (applied.length > 0) log.info({ migrations: applied }, 'applied migrations');
const sandboxMerchantId = await saveMerchant(databaseUrl, env.SANDBOX_API_USERNAME, env.SANDBOX_API_PASSWORD);
const sample = await ensureSampleCatalogue(databaseUrl, sandboxMerchantId);
// A fresh facade credential on every start; the previous start's is revoked, so none outlives its facade.
const facadeCredential = await replaceFacadeCredential(databaseUrl, 'launcher-facade');

const appPath = (app: string) => fileURLToPath(new URL(`../apps/${app}/src/main.ts`, import.meta.url));
const children: ChildProcess[] = [];
let stopping = false;

function launch(app: string, extraEnv: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [appPath(app)], {
    stdio: 'inherit',
    env: { ...process.env, ...extraEnv },
  });
  child.on('exit', (code) => {
    if (!stopping) {
      log.error({ app, code }, 'a process exited; stopping');
      void stop(1);
    }
  });
  children.push(child);
  return child;
}

async function waitForPort(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`nothing listens on port ${port} after 10 s`);
}

async function stop(code: number): Promise<never> {
  stopping = true;
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
  await server.stop();
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

launch('core', {
  DATABASE_URL: databaseUrl,
  CORE_PORT: String(env.CORE_PORT),
  PAYWIRE_MODE: env.PAYWIRE_MODE,
  CARD_ENCRYPTION_KEY: cardEncryptionKey(env.CARD_ENCRYPTION_KEY, env.PAYWIRE_DATA_DIR),
});
await waitForPort(env.CORE_PORT);
launch('facade', {
  PORT: String(env.PORT),
  CORE_URL: `http://127.0.0.1:${env.CORE_PORT}/trpc`,
  PAYWIRE_MODE: env.PAYWIRE_MODE,
  CORE_CREDENTIAL: facadeCredential,
});
await waitForPort(env.PORT);

// For the person who ran npm start, not a log line: where to point a client, with the sandbox's own login.
process.stdout.write(`
Paywire is running (${env.PAYWIRE_MODE} mode).
  Base URL:    http://localhost:${env.PORT}/services/2
  Username:    ${env.SANDBOX_API_USERNAME}
  Password:    ${env.SANDBOX_API_PASSWORD}
  Sample sku:  ${sample.skuId} (${sample.productName} / ${sample.skuName}, ${sample.price}) for batch orders
  Try:         curl -u ${env.SANDBOX_API_USERNAME}:${env.SANDBOX_API_PASSWORD} http://localhost:${env.PORT}/services/2/sandbox/clock
Press Ctrl-C to stop.\n`);
