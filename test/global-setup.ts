import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  disposableSettings,
  type PostgresServer,
  serverAt,
  settingFlags,
  startEmbeddedPostgres,
} from '../infra/postgres.ts';
import { startPgBouncer } from './support/pgbouncer.ts';
import { localPostgresImage, removeStalePortForwards, startPodmanService } from './support/podman.ts';
import { freePort } from './support/ports.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Maintenance database URL of this run's PostgreSQL server. */
    postgresAdminUrl: string;
    /** The port of the PgBouncer (transaction mode) in front of it, when one could be started. */
    pgbouncerPort: number | undefined;
  }
}

/**
 * TEST_DATABASE_URL if set; else PostgreSQL in a container through testcontainers, where podman and the
 * local image of test/containers/prepare.sh are here (npm test prepares them); else embedded PostgreSQL,
 * with a banner saying why.
 */
async function acquirePostgres(): Promise<PostgresServer> {
  if (process.env.TEST_DATABASE_URL) return serverAt(process.env.TEST_DATABASE_URL);
  const image = localPostgresImage();
  if (image) return containerPostgres(image);
  console.warn(
    [
      '#'.repeat(100),
      '## No container runtime: podman or its PostgreSQL image (test/containers/prepare.sh) is missing.',
      '## The tests run on embedded PostgreSQL instead of testcontainers.',
      '#'.repeat(100),
    ].join('\n'),
  );
  return embeddedPostgres();
}

async function containerPostgres(image: string): Promise<PostgresServer> {
  removeStalePortForwards();
  const podman = await startPodmanService();
  process.env.DOCKER_HOST = podman.dockerHost;
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  try {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const { Wait } = await import('testcontainers');
    const container = await new PostgreSqlContainer(image)
      .withUsername('postgres')
      .withDatabase('postgres')
      .withPassword(randomBytes(18).toString('base64url'))
      .withCommand(['postgres', ...settingFlags(disposableSettings)])
      // Podman with no systemd schedules no health checks, so the image's pg_isready check never reports:
      // ready is the server's "ready" line (the entrypoint's setup server logs nothing) and the mapped port.
      .withWaitStrategy(
        Wait.forAll([
          Wait.forLogMessage('database system is ready to accept connections'),
          Wait.forListeningPorts(),
        ]),
      )
      .start();
    console.info(`PostgreSQL for the tests: ${image} through testcontainers (podman)`);
    return serverAt(container.getConnectionUri(), async () => {
      await container.stop();
      await podman.stop();
    });
  } catch (error) {
    await podman.stop();
    throw error;
  }
}

async function embeddedPostgres(): Promise<PostgresServer> {
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
