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
import { freePort } from '../support/ports.ts';

export interface BenchDatabase {
  databaseUrl: string;
  /** PostgreSQL's data directory (its processes' command lines name it). */
  dataDir: string;
  merchant: { id: number; username: string; password: string };
  /** A caller credential acting for any merchant, as the facade's. */
  facadeCredential: string;
  /** Stops PostgreSQL and removes its directory. */
  stop(): Promise<void>;
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
  }).catch((error: unknown) => {
    removeDir();
    throw error;
  });
  const stop = async () => {
    await postgres.stop();
    removeDir();
  };
  try {
    await postgres.ensureDatabase('bench');
    const databaseUrl = postgres.databaseUrl('bench');
    await migrateDatabase(databaseUrl);
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
