import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LauncherEnv } from './launcher-env.ts';
import { type PostgresServer, serverAt, startEmbeddedPostgres } from './postgres.ts';

/** DATABASE_URL when given, else the embedded server under the data dir (started or already running). */
export async function provideDatabase(
  env: LauncherEnv,
): Promise<{ server: PostgresServer; databaseUrl: string }> {
  if (env.DATABASE_URL) return { server: serverAt(env.DATABASE_URL), databaseUrl: env.DATABASE_URL };
  const server = await startEmbeddedPostgres({
    dataDir: path.join(env.PAYWIRE_DATA_DIR, 'postgres'),
    port: env.EMBEDDED_POSTGRES_PORT,
    durable: true,
    reuseRunning: true,
  });
  await server.ensureDatabase('paywire');
  return { server, databaseUrl: server.databaseUrl('paywire') };
}

/** The app role `npm start` makes on the embedded server. */
const embeddedAppRole = 'paywire_app';

/**
 * Core's connection as its app role (docs/security.md, Database roles): DATABASE_APP_URL when given; with
 * the embedded server, the login role paywire_app made there, its password generated once and kept
 * owner-only in the data dir; else none, and core connects as DATABASE_URL's role.
 */
export async function appDatabase(
  env: LauncherEnv,
  server: PostgresServer,
): Promise<{ url: string; role: string } | undefined> {
  if (env.DATABASE_APP_URL)
    return { url: env.DATABASE_APP_URL, role: decodeURIComponent(new URL(env.DATABASE_APP_URL).username) };
  if (env.DATABASE_URL) return undefined;
  const file = path.join(env.PAYWIRE_DATA_DIR, 'app-role.password');
  if (!existsSync(file)) {
    mkdirSync(env.PAYWIRE_DATA_DIR, { recursive: true });
    writeFileSync(file, randomBytes(24).toString('base64url'), { mode: 0o600 });
  }
  const password = readFileSync(file, 'utf8').trim();
  return { url: await server.ensureLoginRole(embeddedAppRole, password, 'paywire'), role: embeddedAppRole };
}

/**
 * Applies the committed migrations as the owner at databaseUrl, then grants core's app role (when named)
 * what it needs; returns the names applied now. Core's modules load only here, so the launcher, which needs
 * provideDatabase alone, stays small.
 */
export async function migrateDatabase(databaseUrl: string, appRole?: string): Promise<string[]> {
  const { migrate, openDatabase } = await import('@paywire/core');
  const orm = await openDatabase(databaseUrl, 2);
  try {
    return await migrate(orm, databaseUrl, { appRole });
  } finally {
    await orm.close();
  }
}
