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
import { type PostgresServer, startEmbeddedPostgres } from '../../infra/postgres.ts';
import { type Balancer, startBalancer } from './balancer.ts';
import { onDatabase } from './database-client.ts';
import { freePort } from './ports.ts';
import { waitFor } from './wait.ts';

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
  /**
   * The primary's node cut off by the network: its processes stopped (SIGSTOP), so connections to it stay
   * open and are never answered, until `endPartition` (the node back, the operator shutting the old
   * primary down: SIGKILL).
   */
  partitionPrimary(): void;
  endPartition(): void;
  /** The standby promoted (pg_promote, waiting until it writes), then the `-rw` endpoint re-pointed at it. */
  promoteStandby(): Promise<void>;
  /** A new synchronous standby cloned from the primary, as the operator does after a failover. */
  addStandby(): Promise<void>;
  /**
   * A planned switchover, as CloudNativePG's rolling update does it: the primary shut down cleanly (its
   * shutdown waits until the standby has every WAL record), the standby promoted, the endpoint re-pointed.
   */
  switchover(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Every member acknowledges a commit only once it is flushed and, when a synchronous standby is named, on
 * that standby (the tests' other servers trade that away). fsync stays off, as on the tests' other servers:
 * a drill kills processes, not the machine, and no page the kernel holds is lost.
 */
const memberSettings = { synchronous_commit: 'on' };

interface Member {
  name: string;
  server: PostgresServer;
  port: number;
  dataDir: string;
}

/** The server's postmaster and its children (backends, WAL sender, ...), as one pod's processes. */
function processesOf(dataDir: string): number[] {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  // from /proc, not ps: a minimal machine has no procps. A stat line is "pid (comm) state ppid ...".
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/** A backend that exited between the listing and the signal has nothing left to stop. */
function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
}

/**
 * A standby of `primary` named `name`: a base backup taken while the primary runs (a slot keeps the WAL from
 * the backup's start until the standby has streamed it; WAL files, slots and the pid file are not part of a
 * base backup), started streaming from it; then the primary's commits wait for it (`ALTER SYSTEM`, reloaded),
 * once it is connected.
 */
async function cloneStandby(primary: Member, name: string, root: string): Promise<Member> {
  const dataDir = path.join(root, name);
  await onDatabase(primary.server.adminUrl, async (client) => {
    await client.query('select pg_create_physical_replication_slot($1, true)', [name]);
    await client.query(`select pg_backup_start($1, true)`, [name]);
    execFileSync('cp', ['-a', primary.dataDir, dataDir]);
    const { rows } = await client.query<{ labelfile: string }>('select labelfile from pg_backup_stop(false)');
    for (const place of ['pg_wal', 'pg_replslot'])
      for (const entry of readdirSync(path.join(dataDir, place), { withFileTypes: true }))
        if (entry.isFile() || place === 'pg_replslot')
          rmSync(path.join(dataDir, place, entry.name), { recursive: true });
    rmSync(path.join(dataDir, 'postmaster.pid'));
    rmSync(path.join(dataDir, 'postmaster.opts'), { force: true });
    appendFileSync(path.join(dataDir, 'backup_label'), rows[0]?.labelfile ?? '');
  });
  // What `pg_basebackup -R` writes: recovery as a standby, streaming from the primary through the slot. Once
  // promoted it has no standby of its own, so its commits must not wait for one (until one is cloned from it,
  // its RPO is a single server's).
  const { password } = new URL(primary.server.adminUrl);
  appendFileSync(path.join(dataDir, 'standby.signal'), '');
  appendFileSync(
    path.join(dataDir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres password=${decodeURIComponent(password)} application_name=${name}'\n` +
      `primary_slot_name = '${name}'\nsynchronous_standby_names = ''\n`,
  );
  execFileSync('chown', [
    '--reference',
    primary.dataDir,
    path.join(dataDir, 'backup_label'),
    path.join(dataDir, 'standby.signal'),
  ]);
  copyFileSync(`${primary.dataDir}.password`, `${dataDir}.password`);
  const port = await freePort();
  const server = await startEmbeddedPostgres({ dataDir, port, durable: false, settings: memberSettings });
  await onDatabase(primary.server.adminUrl, async (client) => {
    const streaming = async (state: string) => {
      for (let attempt = 0; attempt < 200; attempt++) {
        const { rows } = await client.query(
          'select 1 from pg_stat_replication where application_name = $1 and sync_state = $2',
          [name, state],
        );
        if (rows.length > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the standby ${name} was not ${state} within 10 s`);
    };
    await streaming('async');
    await client.query(`alter system set synchronous_standby_names = '${name}'`);
    await client.query('select pg_reload_conf()');
    await streaming('sync');
  });
  return { name, server, port, dataDir };
}

export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const root = mkdtempSync(path.join(tmpdir(), 'paywire-replicated-pg-'));
  chmodSync(root, 0o755); // run as root, PostgreSQL runs as its own OS user and must reach its data dirs
  const members: Member[] = [];
  const first = path.join(root, 'member1');
  const firstPort = await freePort();
  let primary: Member = {
    name: 'member1',
    port: firstPort,
    dataDir: first,
    server: await startEmbeddedPostgres({
      dataDir: first,
      port: firstPort,
      durable: false,
      settings: memberSettings,
    }),
  };
  members.push(primary);
  const addStandby = async () => {
    const standby = await cloneStandby(primary, `member${members.length + 1}`, root);
    members.push(standby);
    return standby;
  };
  let standby: Member | undefined = await addStandby();

  // The harness says which server is primary: the endpoint trusts it, as the Service trusts the operator.
  const rw: Balancer = await startBalancer([primary.port], async () => true);
  const endpoint = new URL(primary.server.adminUrl);
  endpoint.port = String(rw.port);

  let partitioned: number[] = [];
  const promote = async () => {
    if (!standby) throw new Error('no standby to promote');
    const promoted = standby;
    await onDatabase(promoted.server.adminUrl, (client) => client.query('select pg_promote(true, 60)'));
    primary = promoted;
    standby = undefined;
    rw.backends = [promoted.port];
    // Moved once a connection through it reaches the new primary, as the -rw Service has moved once its
    // endpoints follow the label (the balancer's readiness look takes up to 100 ms to find the server).
    await waitFor(
      'the -rw endpoint to reach the promoted server',
      () =>
        onDatabase(endpoint.toString(), async (client) => {
          const { rows } = await client.query<{ recovering: boolean }>(
            'select pg_is_in_recovery() as recovering',
          );
          return rows[0]?.recovering === false;
        }).catch(() => false),
      10_000,
    );
  };

  return {
    adminUrl: endpoint.toString(),
    primaryAdminUrl: () => primary.server.adminUrl,
    killPrimary() {
      signalAll(processesOf(primary.dataDir), 'SIGKILL');
    },
    partitionPrimary() {
      partitioned = processesOf(primary.dataDir);
      signalAll(partitioned, 'SIGSTOP');
    },
    endPartition() {
      signalAll(partitioned, 'SIGKILL');
      partitioned = [];
    },
    promoteStandby: promote,
    async addStandby() {
      standby = await addStandby();
    },
    async switchover() {
      await primary.server.stop(); // a fast shutdown: it waits for the standby to receive its last WAL
      await promote();
    },
    async close() {
      signalAll(partitioned, 'SIGKILL');
      await rw.close();
      for (const member of members.reverse()) await member.server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
