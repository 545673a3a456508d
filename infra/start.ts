import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger } from '@paywire/observability';
import { cardEncryptionKey } from './card-key.ts';
import { appDatabase, provideDatabase } from './database.ts';
import { loadLauncherEnv } from './launcher-env.ts';
import { serviceNodeOptions } from './node-options.ts';
import { softHsmEnvironment } from './softhsm.ts';

/**
 * npm start: PostgreSQL (embedded unless DATABASE_URL is set); then prepare.ts in a child process
 * (migrations, the sandbox merchant, the facade's credential); then facade and core (role both) in one
 * process (single-process.ts). The launcher itself only supervises: it never loads core's modules. Ctrl-C or
 * SIGTERM drains facade and core, then stops PostgreSQL.
 */
const env = loadLauncherEnv();
const log = createLogger('launcher');

const { server, databaseUrl } = await provideDatabase(env);
// Migrations and setup as the owner; core as the app role, which the migration grants (docs/security.md).
const app = await appDatabase(env, server);
const prepared = await promisify(execFile)(
  process.execPath,
  [fileURLToPath(new URL('./prepare.ts', import.meta.url))],
  { env: { ...process.env, DATABASE_URL: databaseUrl, ...(app ? { DATABASE_APP_ROLE: app.role } : {}) } },
).catch(async (error: { stderr?: string }) => {
  log.error({ detail: error.stderr ?? String(error) }, 'setup failed');
  await server.stop();
  process.exit(1);
});
const { applied, sample, facadeCredential } = JSON.parse(prepared.stdout) as {
  applied: string[];
  /** Sandbox mode only: the sandbox merchant's sample product. */
  sample: { skuId: number; skuName: string; price: string } | null;
  facadeCredential: string;
};
if (applied.length > 0) log.info({ migrations: applied }, 'applied migrations');

const children: ChildProcess[] = [];
let stopping = false;

function launch(app: string, extraEnv: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [fileURLToPath(new URL(`./${app}.ts`, import.meta.url))], {
    stdio: 'inherit',
    env: { NODE_OPTIONS: serviceNodeOptions, ...process.env, ...extraEnv },
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

/** Until the process on port answers GET /readyz with 200 (core: migrated and its jobs started). */
async function waitUntilReady(port: number): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing ready on port ${port} after 30 s`);
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

const keyEnvironment = env.PAYWIRE_SOFTHSM
  ? await softHsmEnvironment(env.PAYWIRE_DATA_DIR).catch(async (error: Error) => {
      log.error({ detail: error.message }, 'SoftHSM2 setup failed');
      await server.stop();
      process.exit(1);
    })
  : {};
launch('single-process', {
  DATABASE_URL: app?.url ?? databaseUrl,
  CORE_PORT: String(env.CORE_PORT),
  PORT: String(env.PORT),
  PAYWIRE_MODE: env.PAYWIRE_MODE,
  CARD_ENCRYPTION_KEY: cardEncryptionKey(env.CARD_ENCRYPTION_KEY, env.PAYWIRE_DATA_DIR),
  CORE_CREDENTIAL: facadeCredential,
  ...keyEnvironment,
});
await waitUntilReady(env.PORT);

// For the person who ran npm start, not a log line: where to point a client, with the sandbox's own login.
// Live mode has no such merchant and prints no password (docs/security.md, Live mode).
process.stdout.write(
  sample
    ? `
Paywire is running (${env.PAYWIRE_MODE} mode).
  Base URL:    http://localhost:${env.PORT}/services/2
  Username:    ${env.SANDBOX_API_USERNAME}
  Password:    ${env.SANDBOX_API_PASSWORD}
  Sample sku:  ${sample.skuId} (${sample.skuName}, ${sample.price}) for batch orders
  Try:         curl -u ${env.SANDBOX_API_USERNAME}:${env.SANDBOX_API_PASSWORD} http://localhost:${env.PORT}/services/2/sandbox/clock
Press Ctrl-C to stop.\n`
    : `
Paywire is running (live mode).
  Base URL:    http://localhost:${env.PORT}/services/2
  Merchants:   none is made for you; add one with npm run merchant -- create --username U --password P
               (an operator's PAYWIRE_ADMIN_CREDENTIAL: the first from npm run caller -- bootstrap --name <you>)
Press Ctrl-C to stop.\n`,
);
