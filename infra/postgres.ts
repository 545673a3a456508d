import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** A PostgreSQL server we can make databases on. */
export interface PostgresServer {
  /** URL of the maintenance database, for creating others. */
  adminUrl: string;
  databaseUrl(name: string): string;
  ensureDatabase(name: string): Promise<void>;
  /**
   * A login role that owns nothing (core's app role, docs/security.md): made, or its password replaced;
   * returns its URL on database `name`. The grants are the migration's (`DATABASE_APP_ROLE`).
   */
  ensureLoginRole(role: string, password: string, name: string): Promise<string>;
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
    async ensureLoginRole(role, password, name) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        const found = await client.query('select 1 from pg_roles where rolname = $1', [role]);
        const verb = found.rowCount === 0 ? 'create' : 'alter';
        // Only the verifier travels in the statement, never the password (scramVerifier).
        await client.query(
          `${verb} role ${client.escapeIdentifier(role)} login nosuperuser nocreatedb nocreaterole password '${scramVerifier(password)}'`,
        );
      } finally {
        await client.end();
      }
      const url = new URL(withDatabase(adminUrl, name));
      url.username = encodeURIComponent(role);
      url.password = encodeURIComponent(password);
      return url.toString();
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

/** The OS user PostgreSQL runs as when we are root (it refuses to run as root). */
interface OsUser {
  uid: number;
  gid: number;
}

function postgresOsUser(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', user]);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** Whether `as` may do what test(1)'s flag checks on target (e.g. -x: reach and run, -w: write). */
const allowed = (as: OsUser, flag: string, target: string) =>
  spawnSync('test', [flag, target], { uid: as.uid, gid: as.gid, cwd: '/' }).status === 0;

/**
 * Where root keeps what PostgreSQL's own OS user cannot reach inside a private clone (mode 700, as root's
 * home is): created by root, writable by root only.
 */
const reachablePlace = '/var/lib/paywire/embedded-postgres';

function ensureReachablePlace(): string {
  mkdirSync(reachablePlace, { recursive: true, mode: 0o755 });
  for (let dir = reachablePlace; dir !== '/'; dir = path.dirname(dir)) {
    const { uid, mode } = statSync(dir);
    if (uid !== 0 || (mode & 0o022) !== 0) throw new Error(`${dir} must be owned and writable by root only`);
  }
  return reachablePlace;
}

/** The PostgreSQL binaries of the @embedded-postgres package for this platform, located without loading it. */
function packagedBinaries(): { native: string; version: string } {
  // createRequire, not import.meta.resolve: vitest's module runner (the tests' global setup) lacks the latter.
  const entry = createRequire(import.meta.url).resolve(
    `@embedded-postgres/${process.platform}-${process.arch}`,
  );
  const packageDir = path.join(path.dirname(entry), '..');
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  return { native: path.join(packageDir, 'native'), version };
}

/** The binaries' directory (bin, lib, share): the package's own, or as root a copy its OS user reaches. */
function binaries(as: OsUser | undefined): string {
  const { native, version } = packagedBinaries();
  if (!as || allowed(as, '-x', path.join(native, 'bin', 'postgres'))) return native;
  const copy = path.join(ensureReachablePlace(), `postgres-${version}`);
  if (!existsSync(path.join(copy, '.complete'))) {
    rmSync(copy, { recursive: true, force: true });
    execFileSync('cp', ['-a', native, copy]); // keeps the library symlinks and modes
    writeFileSync(path.join(copy, '.complete'), '');
  }
  return copy;
}

/**
 * The data directory PostgreSQL uses for dataDir: dataDir itself when its OS user can reach it; else (root,
 * private clone) one under reachablePlace named after dataDir's path, with dataDir a symlink to it.
 */
function dataDirectory(dataDir: string, as: OsUser | undefined): string {
  if (!as) return dataDir;
  if (lstatSync(dataDir, { throwIfNoEntry: false })?.isSymbolicLink()) return realpathSync(dataDir);
  if (existsSync(dataDir) || allowed(as, '-x', path.dirname(dataDir))) return dataDir;
  const hash = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  const target = path.join(ensureReachablePlace(), `data-${hash}`);
  mkdirSync(target, { recursive: true, mode: 0o700 });
  symlinkSync(target, dataDir);
  return target;
}

/** Runs a PostgreSQL binary, as its OS user when we are root; rejects with its errors on failure. */
function run(program: string, args: string[], as: OsUser | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { ...as, cwd: '/', stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(program)} failed (${code}): ${errors}`)),
    );
  });
}

/** A test server's settings: durability traded for speed (its data is thrown away with the run). */
export const disposableSettings: Record<string, string> = {
  max_connections: '300',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
};

/** Server settings as postgres's command-line flags. */
export const settingFlags = (settings: Record<string, string>) =>
  Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Tests trade durability for speed; `npm start` keeps PostgreSQL's defaults. */
  durable: boolean;
  /** When a server already runs on dataDir (npm start is up), use it and leave it running. */
  reuseRunning?: boolean;
  /** Every statement the server runs, as PostgreSQL logs it (log_statement=all): tests check their texts. */
  logStatements?: (line: string) => void;
  /** Further server settings (e.g. replication's), after and so over the ones above. */
  settings?: Record<string, string>;
}

/**
 * PostgreSQL from the @embedded-postgres binaries, run directly (the embedded-postgres module is not
 * loaded): initialised once, data kept in dataDir between runs. As root it runs as its own 'postgres' OS
 * user, which PostgreSQL requires; when that user cannot reach the binaries or dataDir (a clone in a mode
 * 700 directory), both move under /var/lib/paywire/embedded-postgres, dataDir becoming a symlink there.
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
  const as = postgresOsUser();
  const native = binaries(as);
  const clusterDir = dataDirectory(dataDir, as);
  if (!initialised) {
    mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
    if (as) chownSync(clusterDir, as.uid, as.gid);
    // The password goes through a file only PostgreSQL's user reads, removed straight after.
    const passwordDir = mkdtempSync(path.join(tmpdir(), 'paywire-initdb-'));
    const pwfile = path.join(passwordDir, 'password');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (as) {
      chownSync(passwordDir, as.uid, as.gid);
      chownSync(pwfile, as.uid, as.gid);
    }
    try {
      await run(
        path.join(native, 'bin', 'initdb'),
        [
          `--pgdata=${clusterDir}`,
          '--auth=scram-sha-256',
          `--username=${user}`,
          `--pwfile=${pwfile}`,
          '--encoding=UTF8',
          '--locale=C.UTF-8',
        ],
        as,
      );
    } finally {
      rmSync(passwordDir, { recursive: true, force: true });
    }
  }
  const flags = [
    ...settingFlags(options.durable ? { max_connections: '200' } : disposableSettings),
    // parameter values stay out of the log, as the README advises operators who log statements
    ...(options.logStatements
      ? settingFlags({
          log_statement: 'all',
          log_parameter_max_length: '0',
          log_parameter_max_length_on_error: '0',
        })
      : []),
    ...settingFlags(options.settings ?? {}),
  ];
  const postgres = spawn(
    path.join(native, 'bin', 'postgres'),
    ['-D', clusterDir, '-p', String(options.port), ...flags],
    {
      ...as,
      cwd: '/',
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => postgres.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    postgres.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      options.logStatements?.(text);
      // a standby in recovery accepts read-only connections
      if (/database system is ready to accept (read-only )?connections/.test(text)) resolve();
    });
    // embedded-postgres's old message, kept: the usual reason is the port.
    void exited.then(() =>
      reject(new Error(`PostgreSQL did not start on port ${options.port} (is the port in use?)`)),
    );
  });
  const adminPassword =
    password === formerPassword ? await replaceFormerPassword(options.port, dataDir) : password;
  return serverAt(adminUrlOf(options.port, adminPassword), async () => {
    if (postgres.exitCode === null) postgres.kill('SIGINT'); // fast shutdown
    await exited;
  });
}
