import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { type PostgresServer, serverAt, startEmbeddedPostgres } from '../infra/postgres.ts';
import { startPgBouncer } from './support/pgbouncer.ts';
import { freePort } from './support/ports.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Maintenance database URL of this run's PostgreSQL server. */
    postgresAdminUrl: string;
    /** The port of the PgBouncer (transaction mode) in front of it, when one could be started. */
    pgbouncerPort: number | undefined;
  }
}

/** TEST_DATABASE_URL if set, else a container when an engine answers, else embedded PostgreSQL. */
async function acquirePostgres(): Promise<PostgresServer> {
  if (process.env.TEST_DATABASE_URL) return serverAt(process.env.TEST_DATABASE_URL);
  try {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:17-alpine').start();
    return serverAt(container.getConnectionUri(), async () => void (await container.stop()));
  } catch (error) {
    if (!String((error as Error).message).includes('container runtime')) throw error;
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'paywire-test-pg-'));
  chmodSync(dataDir, 0o755); // run as root, PostgreSQL runs as its own OS user and must reach its data dir
  const server = await startEmbeddedPostgres({
    dataDir: path.join(dataDir, 'data'),
    port: await freePort(),
    durable: false,
  });
  return {
    ...server,
    async stop() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export default async function setup(project: TestProject) {
  const server = await acquirePostgres();
  const pgbouncer = await startPgBouncer(server.adminUrl).catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  project.provide('postgresAdminUrl', server.adminUrl);
  project.provide('pgbouncerPort', pgbouncer?.port);
  return async () => {
    await pgbouncer?.stop();
    await server.stop();
  };
}
