import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { executeParameterized } from '../db/wire.ts';
import { sendFollower } from '../jobs/boss.ts';
import { runHeartbeat } from '../jobs/queues.ts';
import { keyRetirements, keyRowsReencrypted, keyRowsRefingerprinted } from '../metrics.ts';
import { coreOrigin, recordAudit } from '../security/audit/trail.ts';
import {
  accountFingerprintInput,
  type Binding,
  type RefreshableVault,
  type SealedTable,
} from '../security/card-vault.ts';
import type { KeyProvider } from './provider.ts';
import {
  advanceProgress,
  fingerprintedBatches,
  fingerprintReferencesByKey,
  fingerprintStragglers,
  liveKeys,
  newestKey,
  progressOf,
  referencesByKey,
  refingerprinted,
  resealed,
  retireFingerprintKey,
  retireKey,
  sealedBatches,
} from './queries.ts';
import { refreshKeyRing } from './ring.ts';

export const reencryptQueue = 'keys-reencrypt';

const tables: SealedTable[] = [
  'stored_card',
  'payment_fields_token',
  'sepa_mandate',
  'processor_account',
  'wallet_keys',
  'ipn_secret',
  'vendor',
];

export interface KeyServices {
  provider: KeyProvider;
  vault: RefreshableVault;
  /** Re-reads the keys: unwraps new ones (once), drops retired ones. */
  refresh(): Promise<void>;
  /** After a new key's activation, how long before a key nothing refers to is retired (cores' refresh margin). */
  retireAfterSeconds: number;
  /** A rotation's default wait before its key is current: longer than every core's refresh period. */
  activateAfterSeconds: number;
  batchSize: number;
}

export function keyServices(
  orm: MikroORM,
  provider: KeyProvider,
  vault: RefreshableVault,
  settings: { retireAfterSeconds: number; activateAfterSeconds: number; batchSize: number },
): KeyServices {
  return {
    provider,
    vault,
    ...settings,
    async refresh() {
      vault.replace(await refreshKeyRing(orm.em.fork(), provider, vault.ring()));
    },
  };
}

interface SealedRow {
  cursor: string;
  merchant_id: number;
  row: string;
  sealed: string;
  /** A mandate's (keys/queries.ts, fingerprintedBatches). */
  scheme?: 'SEPA' | 'ACH';
  routing_number?: string | null;
}

type FingerprintedTable = keyof typeof fingerprintedBatches;

/** How often a key only expiring references hold is tried again for retirement. */
const expiringReferencesPollSeconds = 60;

/**
 * What a rotation of each purpose walks and when it retires a key. A DEK rotation re-seals every value under
 * the new key; a fingerprint key rotation recomputes each vaulted card's and mandate's fingerprint from the
 * opened value and re-seals it bound to the new fingerprint. Idempotency records and fraud screenings cannot be
 * recomputed (only their keyed hash is kept): they keep their key referenced until they expire.
 */
interface Rotation {
  purpose: 'encryption' | 'fingerprint';
  tables: readonly SealedTable[];
  /** The prefix of values (or fingerprints) already under the target key, for `not like`. */
  under(target: number): string;
  batch(table: SealedTable): string;
  /**
   * Rewrites a batch's rows under the target key in `tx`; how many changed (a row a concurrent writer changed
   * is left). A value that does not open goes to `onFailure` and is left under its key.
   */
  rewrite(
    tx: EntityManager,
    keys: KeyServices,
    table: SealedTable,
    target: number,
    rows: SealedRow[],
    onFailure: (error: unknown) => void,
  ): Promise<number>;
  retire: string;
  /** What the retirement statement matches of an old key's values. */
  pattern(key: { id: number; legacy: boolean }): string;
  /**
   * Whether the tables it walks still hold values matching a pattern, when other references only expire;
   * absent: every reference is in the tables it walks.
   */
  stragglers?: string;
  counter: typeof keyRowsReencrypted;
}

const reencryption: Rotation = {
  purpose: 'encryption',
  tables,
  under: (target) => `v2:${target}:%`,
  batch: (table) => sealedBatches[table],
  // One statement per batch: a statement per row made a rotation under load wait for the event loop between
  // rows, at tens of rows a second.
  async rewrite(tx, keys, table, target, rows, onFailure) {
    const resealedRows: { cursor: string; fresh: string; old: string }[] = [];
    for (const row of rows) {
      const at: Binding = { merchantId: row.merchant_id, table, row: row.row };
      try {
        resealedRows.push({
          cursor: row.cursor,
          fresh: keys.vault.sealWith(target, keys.vault.open(row.sealed, at), at),
          old: row.sealed,
        });
      } catch (error) {
        onFailure(error);
      }
    }
    if (resealedRows.length === 0) return 0;
    const changed = await executeParameterized(tx, `${resealed[table]} returning 1`, [
      resealedRows.map((row) => row.cursor),
      resealedRows.map((row) => row.fresh),
      resealedRows.map((row) => row.old),
    ]);
    return changed.length;
  },
  retire: retireKey,
  pattern: (key) => (key.legacy ? 'v1:%' : `v2:${key.id}:%`),
  counter: keyRowsReencrypted,
};

const refingerprinting: Rotation = {
  purpose: 'fingerprint',
  tables: Object.keys(fingerprintedBatches) as FingerprintedTable[],
  under: (target) => `f${target}:%`,
  batch: (table) => fingerprintedBatches[table as FingerprintedTable],
  async rewrite(tx, keys, table, target, rows, onFailure) {
    let count = 0;
    for (const row of rows) {
      try {
        count += await refingerprint(tx, keys, table, target, row);
      } catch (error) {
        onFailure(error);
      }
    }
    return count;
  },
  retire: retireFingerprintKey,
  // a legacy key's fingerprints are bare: no key id, no colon
  pattern: (key) => (key.legacy ? '^[^:]*$' : `^f${key.id}:`),
  stragglers: fingerprintStragglers,
  counter: keyRowsRefingerprinted,
};

/** One value's new fingerprint, and its value re-sealed bound to it, in one compare-and-set. */
async function refingerprint(
  tx: EntityManager,
  keys: KeyServices,
  table: SealedTable,
  target: number,
  row: SealedRow,
): Promise<number> {
  const plain = keys.vault.open(row.sealed, { merchantId: row.merchant_id, table, row: row.row });
  const fingerprint = keys.vault.fingerprintWith(
    target,
    row.scheme
      ? accountFingerprintInput({
          scheme: row.scheme,
          number: plain,
          routingNumber: row.routing_number ?? null,
        })
      : plain,
  );
  const sealed = keys.vault.seal(plain, { merchantId: row.merchant_id, table, row: fingerprint });
  return (
    await executeParameterized(tx, refingerprinted[table as FingerprintedTable], [
      row.cursor,
      fingerprint,
      sealed,
      row.row,
      row.sealed,
    ])
  ).length;
}

/** Rewrites one table's values not under `target`, batch by batch from where the last run stopped. */
async function rotateTable(
  orm: MikroORM,
  keys: KeyServices,
  rotation: Rotation,
  target: number,
  table: SealedTable,
  onFailure: (error: unknown) => void,
): Promise<void> {
  const em = orm.em.fork();
  const [progress] = await executeParameterized<{ last_row: string | null; finished_at: Date | null }>(
    em,
    progressOf,
    [target, table],
  );
  if (progress?.finished_at) return;
  let cursor = progress?.last_row ?? null;
  for (;;) {
    const done = await em.fork().transactional(async (tx) => {
      const rows = await executeParameterized<SealedRow>(tx, rotation.batch(table), [
        cursor,
        rotation.under(target),
        keys.batchSize,
      ]);
      // A value that does not open keeps its key referenced (never retired); the operator sees why.
      const count = await rotation.rewrite(tx, keys, table, target, rows, onFailure);
      const last = rows[rows.length - 1];
      if (last) cursor = last.cursor;
      const finished = rows.length < keys.batchSize;
      await executeParameterized(tx, advanceProgress, [target, table, cursor, count, finished]);
      rotation.counter.inc({ table }, count);
      return finished;
    });
    if (done) return;
  }
}

export type RunOutcome =
  | { state: 'waiting'; seconds: number }
  | { state: 'done' }
  | { state: 'referenced'; keys: string[] };

/**
 * One rotation's run: once its newest key is current, every value under another key is rewritten under it;
 * then each older key of its purpose nothing refers to (every table checked in the statement that retires it)
 * is retired, its wrapped material erased. Resumable: progress is kept per table, and values written
 * meanwhile under an old key send the next run over the tables again.
 */
async function rotationRun(
  orm: MikroORM,
  keys: KeyServices,
  rotation: Rotation,
  onFailure: (error: unknown) => void,
): Promise<RunOutcome> {
  const em = orm.em.fork();
  const [newest] = await executeParameterized<{ id: number; wait_seconds: number }>(em, newestKey, [
    rotation.purpose,
  ]);
  if (!newest) return { state: 'done' };
  if (newest.wait_seconds > 0) return { state: 'waiting', seconds: newest.wait_seconds };
  for (const table of rotation.tables) await rotateTable(orm, keys, rotation, newest.id, table, onFailure);

  const wait = keys.retireAfterSeconds;
  const [activated] = await executeParameterized<{ seconds: number }>(
    em,
    'select extract(epoch from now() - activates_at)::float8 as seconds from data_key where id = $1',
    [newest.id],
  );
  if ((activated?.seconds ?? 0) < wait)
    return { state: 'waiting', seconds: wait - (activated?.seconds ?? 0) };

  const live = await executeParameterized<{ id: number; purpose: string; legacy: boolean }>(em, liveKeys, []);
  const older = live.filter((key) => key.purpose === rotation.purpose && key.id !== newest.id);
  const referenced: string[] = [];
  let walkAgain = rotation.stragglers === undefined;
  for (const key of older) {
    // The retirement and its audit event (core's own, of no merchant) commit together.
    const retired = await em.transactional(async (tx) => {
      const rows = await executeParameterized(tx, rotation.retire, [key.id, rotation.pattern(key)]);
      if (rows.length > 0)
        await recordAudit(tx, coreOrigin, {
          merchantId: null,
          action: 'key.retire',
          object: `data-key:${key.id}`,
          outcome: 'success',
        });
      return rows;
    });
    if (retired.length > 0) keyRetirements.inc();
    else {
      referenced.push(String(key.id));
      if (rotation.stragglers && !walkAgain) {
        const [found] = await executeParameterized<{ found: boolean }>(em, rotation.stragglers, [
          rotation.pattern(key),
        ]);
        walkAgain = found?.found ?? true;
      }
    }
  }
  if (referenced.length === 0) return { state: 'done' };
  // Only references that expire (idempotency records, screenings) remain: look again later, walking nothing.
  if (!walkAgain) return { state: 'waiting', seconds: expiringReferencesPollSeconds };
  // Something still holds an old key (written by a core that had not switched yet): go over the tables again.
  await executeParameterized(em, 'delete from key_reencryption where key_id = $1', [newest.id]);
  return { state: 'referenced', keys: referenced };
}

/** A run of both rotations, DEKs' and the fingerprint key's: the more pressing outcome of the two. */
export async function reencryptRun(
  orm: MikroORM,
  keys: KeyServices,
  onFailure: (error: unknown) => void,
): Promise<RunOutcome> {
  await keys.refresh();
  const outcomes = [
    await rotationRun(orm, keys, reencryption, onFailure),
    await rotationRun(orm, keys, refingerprinting, onFailure),
  ];
  const referenced = outcomes.flatMap((outcome) => (outcome.state === 'referenced' ? outcome.keys : []));
  if (referenced.length > 0) return { state: 'referenced', keys: referenced };
  const waits = outcomes.flatMap((outcome) => (outcome.state === 'waiting' ? [outcome.seconds] : []));
  return waits.length > 0 ? { state: 'waiting', seconds: Math.min(...waits) } : { state: 'done' };
}

/** Values per key id ('v1' for the legacy format), for `keys status`. */
export async function referencesPerKey(em: EntityManager): Promise<Map<string, number>> {
  const rows = await executeParameterized<{ key: string; count: number }>(em, referencesByKey, []);
  return new Map(rows.map((row) => [row.key, row.count]));
}

/** Fingerprints per fingerprint key id ('legacy' for bare ones), for `keys status`. */
export async function fingerprintReferencesPerKey(em: EntityManager): Promise<Map<string, number>> {
  const rows = await executeParameterized<{ key: string; count: number }>(em, fingerprintReferencesByKey, []);
  return new Map(rows.map((row) => [row.key, row.count]));
}

/**
 * The re-encryption job: one run at a time (stately), every minute and when a rotation asks; a run that must
 * wait (a key not yet sealing, the retirement margin) or found stragglers queues the next one itself.
 */
export async function startReencryption(
  jobs: PgBoss,
  orm: MikroORM,
  keys: KeyServices,
  onFailure: (error: unknown) => void,
): Promise<void> {
  await jobs.createQueue(reencryptQueue, { policy: 'stately', expireInSeconds: 3600, retryLimit: 0 });
  await jobs.schedule(reencryptQueue, '* * * * *', {}, runHeartbeat);
  await jobs.work(reencryptQueue, async ([job]) => {
    const outcome = await reencryptRun(orm, keys, onFailure);
    const follow = (startAfter: number) =>
      sendFollower(
        jobs,
        reencryptQueue,
        { startAfter, ...runHeartbeat },
        { ...(job ? { signal: job.signal } : {}), onRetry: onFailure },
      );
    if (outcome.state === 'waiting') await follow(Math.ceil(outcome.seconds) + 1);
    // values under an old key remain (a straggler's write, or one that does not open): look again shortly,
    // not in a hot loop
    else if (outcome.state === 'referenced') await follow(15);
  });
}

/** Asks for a run (a rotation's, when its key becomes current). */
export async function requestReencryption(jobs: PgBoss, afterSeconds = 0): Promise<void> {
  await jobs.createQueue(reencryptQueue, { policy: 'stately', expireInSeconds: 3600, retryLimit: 0 });
  await jobs.send(reencryptQueue, {}, { startAfter: afterSeconds, ...runHeartbeat });
}

declare module '../context.ts' {
  interface CoreServices {
    /** The key provider and the data keys: refresh, rotation's re-encryption job (keys/). */
    keys: KeyServices;
  }
}
