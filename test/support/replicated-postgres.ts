import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type PostgresServer, startEmbeddedPostgres } from '../../infra/postgres.ts';
import { type Balancer, startBalancer } from './balancer.ts';
import { freePort } from './ports.ts';

/**
 * What CloudNativePG runs, made of the same parts here: a primary and one synchronous streaming standby
 * (`synchronous_commit=on`, so a commit is acknowledged only once the standby has its WAL), and a `-rw`
 * endpoint (a TCP balancer) that the harness re-points at whichever server is primary, as the operator
 * re-labels the pods behind the `-rw` Service. The embedded binaries have no pg_basebackup: the standby is a
 * file copy of the primary taken between pg_backup_start and pg_backup_stop, which is what pg_basebackup does.
 */
export interface ReplicatedPostgres {
  /** The maintenance database through the `-rw` endpoint: what Paywire is given. */
  adminUrl: string;
  /** The maintenance database of the server that is primary now, bypassing the endpoint. */
  primaryAdminUrl(): string;
  /** The primary's pod is lost: its postmaster and every backend SIGKILLed at once. */
  killPrimary(): void;
  /** The standby promoted (pg_promote, waiting until it writes), then the `-rw` endpoint re-pointed at it. */
  promoteStandby(): Promise<void>;
  /**
   * A planned switchover, as CloudNativePG's rolling update does it: the primary shut down cleanly (its
   * shutdown waits until the standby has every WAL record), the standby promoted, the endpoint re-pointed.
   */
  switchover(): Promise<void>;
  close(): Promise<void>;
}

const standbyName = 'standby';

interface Member {
  server: PostgresServer;
  port: number;
  dataDir: string;
}

/** The server's postmaster and its children (backends, WAL sender, ...), as one pod's processes. */
function processesOf(dataDir: string): number[] {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => pid > 0);
  return [postmaster, ...children];
}

async function onServer<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const root = mkdtempSync(path.join(tmpdir(), 'paywire-replicated-pg-'));
  chmodSync(root, 0o755); // run as root, PostgreSQL runs as its own OS user and must reach its data dirs
  const primaryDir = path.join(root, 'primary');
  const standbyDir = path.join(root, 'standby');
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];

  const primary: Member = {
    port: primaryPort,
    dataDir: primaryDir,
    server: await startEmbeddedPostgres({
      dataDir: primaryDir,
      port: primaryPort,
      durable: true,
      settings: { synchronous_standby_names: standbyName, synchronous_commit: 'on' },
    }),
  };

  // The base backup, taken while the primary runs. A slot keeps the WAL from the backup's start until the
  // standby has streamed it; WAL files, slots and the pid file are not part of a base backup.
  await onServer(primary.server.adminUrl, async (client) => {
    await client.query('select pg_create_physical_replication_slot($1, true)', [standbyName]);
    await client.query(`select pg_backup_start('paywire-standby', true)`);
    execFileSync('cp', ['-a', primaryDir, standbyDir]);
    const { rows } = await client.query<{ labelfile: string }>('select labelfile from pg_backup_stop(false)');
    for (const place of ['pg_wal', 'pg_replslot'])
      for (const entry of readdirSync(path.join(standbyDir, place), { withFileTypes: true }))
        if (entry.isFile() || place === 'pg_replslot')
          rmSync(path.join(standbyDir, place, entry.name), { recursive: true });
    rmSync(path.join(standbyDir, 'postmaster.pid'));
    rmSync(path.join(standbyDir, 'postmaster.opts'), { force: true });
    appendFileSync(path.join(standbyDir, 'backup_label'), rows[0]?.labelfile ?? '');
  });
  // What `pg_basebackup -R` writes: recovery as a standby, streaming from the primary through the slot.
  const { password } = new URL(primary.server.adminUrl);
  appendFileSync(path.join(standbyDir, 'standby.signal'), '');
  appendFileSync(
    path.join(standbyDir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres password=${decodeURIComponent(password)} application_name=${standbyName}'\n` +
      `primary_slot_name = '${standbyName}'\n`,
  );
  execFileSync('chown', [
    '--reference',
    primaryDir,
    path.join(standbyDir, 'backup_label'),
    path.join(standbyDir, 'standby.signal'),
  ]);
  copyFileSync(`${primaryDir}.password`, `${standbyDir}.password`);
  // Once promoted it has no standby of its own: commits cannot wait for one (the RPO after a failover, until
  // a new standby is cloned, is that of a single server).
  const standby: Member = {
    port: standbyPort,
    dataDir: standbyDir,
    server: await startEmbeddedPostgres({ dataDir: standbyDir, port: standbyPort, durable: true }),
  };
  await onServer(primary.server.adminUrl, async (client) => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const { rows } = await client.query(
        `select 1 from pg_stat_replication where application_name = $1 and sync_state = 'sync'`,
        [standbyName],
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the standby did not become synchronous within 10 s');
  });

  let current = primary;
  // The harness says which server is primary: the endpoint trusts it, as the Service trusts the operator.
  const rw: Balancer = await startBalancer([primaryPort], async () => true);
  const endpoint = new URL(primary.server.adminUrl);
  endpoint.port = String(rw.port);

  const promote = async () => {
    await onServer(standby.server.adminUrl, (client) => client.query('select pg_promote(true, 60)'));
    current = standby;
    rw.backends = [standby.port];
  };

  return {
    adminUrl: endpoint.toString(),
    primaryAdminUrl: () => current.server.adminUrl,
    killPrimary() {
      for (const pid of processesOf(primary.dataDir)) process.kill(pid, 'SIGKILL');
    },
    promoteStandby: promote,
    async switchover() {
      await primary.server.stop(); // a fast shutdown: it waits for the standby to receive its last WAL
      await promote();
    },
    async close() {
      await rw.close();
      await standby.server.stop();
      await primary.server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
