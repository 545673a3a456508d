import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { executeParameterized } from '../db/wire.ts';
import { sendFollower, startJobs } from '../jobs/boss.ts';
import { keyRetirements, keyRowsReencrypted } from '../metrics.ts';
import { coreOrigin, recordAudit } from '../security/audit/trail.ts';
import type { Binding, RefreshableVault, SealedTable } from '../security/card-vault.ts';
import type { KeyProvider } from './provider.ts';
import {
  advanceProgress,
  liveKeys,
  newestKey,
  progressOf,
  referencesByKey,
  resealed,
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
  batchSize: number;
}

export function keyServices(
  orm: MikroORM,
  provider: KeyProvider,
  vault: RefreshableVault,
  settings: { retireAfterSeconds: number; batchSize: number },
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
}

/** Re-encrypts one table's values not under `target`, batch by batch from where the last run stopped. */
async function reencryptTable(
  orm: MikroORM,
  keys: KeyServices,
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
      const rows = await executeParameterized<SealedRow>(tx, sealedBatches[table], [
        cursor,
        `v2:${target}:%`,
        keys.batchSize,
      ]);
      let count = 0;
      for (const row of rows) {
        const at: Binding = { merchantId: row.merchant_id, table, row: row.row };
        try {
          const fresh = keys.vault.sealWith(target, keys.vault.open(row.sealed, at), at);
          const updated = await executeParameterized(tx, `${resealed[table]} returning 1`, [
            row.cursor,
            fresh,
            row.sealed,
          ]);
          count += updated.length;
        } catch (error) {
          // A value that does not open keeps its key referenced (never retired); the operator sees why.
          onFailure(error);
        }
      }
      const last = rows[rows.length - 1];
      if (last) cursor = last.cursor;
      const finished = rows.length < keys.batchSize;
      await executeParameterized(tx, advanceProgress, [target, table, cursor, count, finished]);
      keyRowsReencrypted.inc({ table }, count);
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
 * One run: once the newest DEK seals, every value under another key is re-encrypted under it; then each older
 * key nothing refers to (every table checked in the statement that retires it) is retired, its wrapped
 * material erased. Resumable: progress is kept per table, and values written meanwhile under an old key send
 * the next run over the tables again.
 */
export async function reencryptRun(
  orm: MikroORM,
  keys: KeyServices,
  onFailure: (error: unknown) => void,
): Promise<RunOutcome> {
  await keys.refresh();
  const em = orm.em.fork();
  const [newest] = await executeParameterized<{ id: number; wait_seconds: number }>(em, newestKey, []);
  if (!newest) return { state: 'done' };
  if (newest.wait_seconds > 0) return { state: 'waiting', seconds: newest.wait_seconds };
  for (const table of tables) await reencryptTable(orm, keys, newest.id, table, onFailure);

  const wait = keys.retireAfterSeconds;
  const [activated] = await executeParameterized<{ seconds: number }>(
    em,
    'select extract(epoch from now() - activates_at)::float8 as seconds from data_key where id = $1',
    [newest.id],
  );
  if ((activated?.seconds ?? 0) < wait)
    return { state: 'waiting', seconds: wait - (activated?.seconds ?? 0) };

  const live = await executeParameterized<{ id: number; purpose: string; legacy: boolean }>(em, liveKeys, []);
  const older = live.filter((key) => key.purpose === 'encryption' && key.id !== newest.id);
  const referenced: string[] = [];
  for (const key of older) {
    // The retirement and its audit event (core's own, of no merchant) commit together.
    const retired = await em.transactional(async (tx) => {
      const rows = await executeParameterized(tx, retireKey, [
        key.id,
        key.legacy ? 'v1:%' : `v2:${key.id}:%`,
      ]);
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
    else referenced.push(String(key.id));
  }
  if (referenced.length === 0) return { state: 'done' };
  // Something still holds an old key (written by a core that had not switched yet): go over the tables again.
  await executeParameterized(em, 'delete from key_reencryption where key_id = $1', [newest.id]);
  return { state: 'referenced', keys: referenced };
}

/** Values per key id ('v1' for the legacy format), for `keys status`. */
export async function referencesPerKey(em: EntityManager): Promise<Map<string, number>> {
  const rows = await executeParameterized<{ key: string; count: number }>(em, referencesByKey, []);
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
  await jobs.schedule(reencryptQueue, '* * * * *', {}, { heartbeatSeconds: 10 });
  await jobs.work(reencryptQueue, async ([job]) => {
    const outcome = await reencryptRun(orm, keys, onFailure);
    const follow = (startAfter: number) =>
      sendFollower(
        jobs,
        reencryptQueue,
        { startAfter, heartbeatSeconds: 10 },
        { ...(job ? { signal: job.signal } : {}), onRetry: onFailure },
      );
    if (outcome.state === 'waiting') await follow(Math.ceil(outcome.seconds) + 1);
    // values under an old key remain (a straggler's write, or one that does not open): look again shortly,
    // not in a hot loop
    else if (outcome.state === 'referenced') await follow(15);
  });
}

/** Asks for a run now (a rotation): from a CLI or a core. */
export async function requestReencryption(jobs: PgBoss, afterSeconds = 0): Promise<void> {
  await jobs.createQueue(reencryptQueue, { policy: 'stately', expireInSeconds: 3600, retryLimit: 0 });
  await jobs.send(reencryptQueue, {}, { startAfter: afterSeconds, heartbeatSeconds: 10 });
}

/** From a CLI: asks the workers for a run after `afterSeconds` (when the new key seals). */
export async function requestReencryptionAt(databaseUrl: string, afterSeconds: number): Promise<void> {
  const jobs = await startJobs(databaseUrl, () => {}, { worker: false });
  try {
    await requestReencryption(jobs, afterSeconds);
  } finally {
    await jobs.stop({ graceful: false });
  }
}
