import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onDatabase } from './database-client.ts';
import { freePort } from './ports.ts';
import { waitFor } from './wait.ts';

/**
 * A PgBouncer in transaction mode in front of the run's PostgreSQL, as the production overlay puts one in
 * front of the database (docs/operations.md, Kubernetes): every test stack's core reaches its database
 * through it. Debian's pgbouncer (1.18, which does not track prepared statements: core runs with
 * DATABASE_NAMED_STATEMENTS=false behind it), installed when missing. Where it cannot be had the tests
 * reach PostgreSQL directly, and say so once.
 */
export interface PgBouncer {
  port: number;
  /**
   * PgBouncer's PAUSE: waits until every server connection is released (in transaction mode, each
   * transaction in flight has ended) and closed; clients' new queries wait meanwhile. CloudNativePG's Pooler
   * does this when `spec.pgbouncer.paused` is set.
   */
  pause(): Promise<void>;
  /** RESUME: the waiting queries go to the server the pooler's host names now. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** The URL of the same database and user, through PgBouncer on `port`. */
export function throughPgBouncer(databaseUrl: string, port: number): string {
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.toString();
}

function ensurePgBouncer(): string | undefined {
  const binary = '/usr/sbin/pgbouncer';
  if (spawnSync(binary, ['--version']).status === 0) return binary;
  const install = spawnSync(
    'sh',
    ['-c', 'apt-get update -qq && apt-get install -y -qq --no-install-recommends pgbouncer'],
    { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, encoding: 'utf8', timeout: 300_000 },
  );
  if (spawnSync(binary, ['--version']).status === 0) return binary;
  console.warn(
    `PgBouncer could not be installed, the tests reach PostgreSQL directly: ${String(install.stderr).slice(-300)}`,
  );
  return undefined;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * Starts PgBouncer for the server of `adminUrl`: any database by name, every client logged in as the
 * server's admin user (`auth_type = any`; the tests of core's own least-privilege role connect directly).
 */
export async function startPgBouncer(
  adminUrl: string,
  {
    serverLoginRetrySeconds = 15,
    serverConnectTimeoutSeconds = 15,
  }: { serverLoginRetrySeconds?: number; serverConnectTimeoutSeconds?: number } = {},
): Promise<PgBouncer | undefined> {
  const binary = ensurePgBouncer();
  if (!binary) return undefined;
  const server = new URL(adminUrl);
  const dir = mkdtempSync(path.join(tmpdir(), 'paywire-pgbouncer-'));
  chmodSync(dir, 0o777); // as root, PgBouncer runs as the postgres user, which writes its pid and socket here
  const port = await freePort();
  const settings = [
    '[databases]',
    `* = host=${server.hostname} port=${server.port} user=${decodeURIComponent(server.username)} password=${decodeURIComponent(server.password)}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    `unix_socket_dir = ${dir}`,
    'auth_type = any',
    `admin_users = ${decodeURIComponent(server.username)}`,
    // how soon a server that refused a login is tried again (a failover drill's promoted standby: at once)
    `server_login_retry = ${serverLoginRetrySeconds}`,
    // how long a login to a server that accepted the connection but never answers (a partitioned primary) waits
    `server_connect_timeout = ${serverConnectTimeoutSeconds}`,
    'pool_mode = transaction',
    'max_client_conn = 2000',
    'default_pool_size = 20',
    // Every test file has a database of its own: server connections of a finished file's pool must not
    // pile up against PostgreSQL's max_connections, which the tests' direct connections share.
    'server_idle_timeout = 2',
    'max_user_connections = 100',
    'ignore_startup_parameters = extra_float_digits,options',
  ];
  const config = path.join(dir, 'pgbouncer.ini');
  writeFileSync(config, `${settings.join('\n')}\n`, { mode: 0o644 });
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(binary, [...(asRoot ? ['-u', 'postgres'] : []), config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors = `${errors}${chunk}`.slice(-2000);
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      'PgBouncer to listen',
      () => {
        if (child.exitCode !== null) throw new Error(`PgBouncer exited with ${child.exitCode}: ${errors}`);
        return listening(port);
      },
      15_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const adminConsole = new URL(throughPgBouncer(adminUrl, port));
  adminConsole.pathname = '/pgbouncer';
  const adminCommand = async (command: 'PAUSE' | 'RESUME') => {
    // the admin console speaks the simple query protocol only
    await onDatabase(adminConsole.toString(), (admin) => admin.query(command));
  };
  return { port, pause: () => adminCommand('PAUSE'), resume: () => adminCommand('RESUME'), stop };
}
