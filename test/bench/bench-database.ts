import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunningCore } from '@paywire/core';
import type pg from 'pg';
import { issueCaller } from '../../infra/callers.ts';
import { migrateDatabase } from '../../infra/database.ts';
import { saveMerchant } from '../../infra/merchants.ts';
import { startEmbeddedPostgres } from '../../infra/postgres.ts';
import { onDatabase } from '../support/database-client.ts';
import { freePort } from '../support/ports.ts';

export interface BenchDatabase {
  databaseUrl: string;
  /** PostgreSQL's data directory (its processes' command lines name it). */
  dataDir: string;
  merchant: { id: number; username: string; password: string };
  /** A caller credential acting for any merchant, as the facade's. */
  facadeCredential: string;
  /** Stops PostgreSQL (printing its statements first, with BENCH_PG_STATEMENTS) and removes its directory. */
  stop(): Promise<void>;
}

/**
 * BENCH_PG_STATEMENTS=1: PostgreSQL loads pg_stat_statements for the run, and stopping the database prints
 * its statements by total execution time, then the rows each table had written (HOT: updates that wrote no
 * index entry). Buffers and WAL per call do not depend on what else the machine runs, so they compare runs
 * that CPU time cannot. Its timing costs little (auto_explain's, per plan node, costs much), so the run's
 * other figures stay comparable; a slow statement's plan is then EXPLAIN's to show.
 */
const tracksStatements = Boolean(process.env.BENCH_PG_STATEMENTS);
const startTrackingStatements = `create extension if not exists pg_stat_statements;
  select pg_stat_statements_reset(), pg_stat_reset()`;
const reports = [
  {
    title: "PostgreSQL's statements by total execution time",
    query: `select calls, round((total_exec_time / calls)::numeric, 3) as "mean ms",
        round(total_exec_time::numeric) as "total ms", round(shared_blks_hit::numeric / calls, 1) as "buffers hit per call",
        round(wal_bytes / calls) as "WAL bytes per call",
        '\`' || replace(left(regexp_replace(query, '\\s+', ' ', 'g'), 160), '|', '\\|') || '\`' as statement
      from pg_stat_statements where calls > 0 order by total_exec_time desc limit 20`,
  },
  {
    title: 'Rows written, by table',
    query: `select relname as "table", n_tup_ins as inserted, n_tup_upd as updated, n_tup_hot_upd as "HOT updated",
        n_tup_del as deleted
      from pg_stat_user_tables where n_tup_ins + n_tup_upd + n_tup_del > 0 order by n_tup_ins + n_tup_upd desc limit 15`,
  },
];

/** A query's answer as a Markdown table, its columns named as the query names them. */
async function markdownTable(client: pg.Client, query: string): Promise<string> {
  const { rows, fields } = await client.query<Record<string, unknown>>(query);
  const names = fields.map((field) => field.name);
  return [
    `| ${names.join(' | ')} |`,
    `|${names.map(() => '---|').join('')}`,
    ...rows.map((row) => `| ${names.map((name) => String(row[name])).join(' | ')} |`),
  ].join('\n');
}

async function printReports(client: pg.Client): Promise<void> {
  for (const { title, query } of reports) {
    process.stdout.write(`\n${title}\n\n${await markdownTable(client, query)}\n`);
  }
}

/**
 * What every benchmark measures against: a durable embedded PostgreSQL (as `npm start` runs it) in a
 * directory of its own, a migrated database, one merchant and a facade credential.
 */
export async function startBenchDatabase(name: string): Promise<BenchDatabase> {
  const baseDir = mkdtempSync(path.join(tmpdir(), `paywire-${name}-`));
  chmodSync(baseDir, 0o755); // PostgreSQL runs as its own OS user when we are root
  const removeDir = () => rmSync(baseDir, { recursive: true, force: true });
  const dataDir = path.join(baseDir, 'pg');
  const postgres = await startEmbeddedPostgres({
    dataDir,
    port: await freePort(),
    durable: true,
    settings: tracksStatements ? { shared_preload_libraries: 'pg_stat_statements' } : {},
  }).catch((error: unknown) => {
    removeDir();
    throw error;
  });
  const databaseUrl = postgres.databaseUrl('bench');
  const stop = async () => {
    if (tracksStatements) {
      await onDatabase(databaseUrl, printReports).catch((error: unknown) =>
        process.stderr.write(`pg_stat_statements: ${String(error)}\n`),
      );
    }
    await postgres.stop();
    removeDir();
  };
  try {
    await postgres.ensureDatabase('bench');
    await migrateDatabase(databaseUrl);
    // reset after the migrations, so the table shows the benchmark's statements only
    if (tracksStatements) await onDatabase(databaseUrl, (client) => client.query(startTrackingStatements));
    const password = randomBytes(12).toString('base64url');
    const id = await saveMerchant(databaseUrl, 'bench', password);
    const facadeCredential = await issueCaller(databaseUrl, { name: 'bench-facade', scope: 'any-merchant' });
    return { databaseUrl, dataDir, merchant: { id, username: 'bench', password }, facadeCredential, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What an in-process bench started; any part may not be started yet. */
export interface BenchParts {
  database: BenchDatabase | undefined;
  core: RunningCore | undefined;
  db: pg.Client | undefined;
}

/**
 * The bench's cleanup: `stop` runs once, whether the bench ends or is interrupted (SIGINT, SIGTERM: then
 * exit 130), so no server outlives it.
 */
export function stopsOnce(stop: () => Promise<void>, log: (line: string) => void): () => Promise<void> {
  let cleaning: Promise<void> | undefined;
  const cleanup = () => {
    cleaning ??= stop();
    return cleaning;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping everything the benchmark started`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  return cleanup;
}

/** Stops what an in-process bench started: its client, core, then PostgreSQL. */
export async function stopParts(
  { database, core, db }: BenchParts,
  log: (line: string) => void,
): Promise<void> {
  await db?.end().catch(() => {});
  await core?.close().catch((error: unknown) => log(`stopping core: ${String(error)}`));
  await database?.stop().catch((error: unknown) => log(`stopping PostgreSQL: ${String(error)}`));
}
