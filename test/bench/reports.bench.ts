import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { type RunningCore, startCore } from '@paywire/core';
import { createLogger } from '@paywire/observability';
import pg from 'pg';
import { startFacade, type TestFacade } from '../support/stack.ts';
import { type BenchDatabase, startBenchDatabase, stopParts, stopsOnce } from './bench-database.ts';

/**
 * Reporting API export: N captured card sales of one merchant (written straight into the tables, spread
 * over the last days), then GET /services/2/report/TransactionDetail?format=csv for all of them, read by a
 * client that counts lines and bytes and keeps nothing. Core and facade run in this process on a durable
 * embedded PostgreSQL, so the RSS sampled every 100 ms is core's and the facade's together: an upper bound
 * of core's. The report streams a batch of core's rows at a time; its RSS must not grow with N.
 * Usage: node test/bench/reports.bench.ts [--rows 1000000] [--timeout-seconds 900]
 */
const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    'timeout-seconds': { type: 'string', default: '900' },
  },
});
const rowsWanted = Number(args.rows);
const timeoutSeconds = Number(args['timeout-seconds']);
const log = (line: string) => process.stderr.write(`${line}\n`);
const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

let database: BenchDatabase | undefined;
let core: RunningCore | undefined;
let facade: TestFacade | undefined;
let db: pg.Client | undefined;
const cleanup = stopsOnce(async () => {
  await facade?.close();
  await stopParts({ database, core, db }, log);
}, log);

/** One shopper and card (no card data: last four only), and N sales a second apart back from now. */
const seed = `
  with shopper as (
    insert into shopper (merchant_id, first_name, last_name, email, created_at, updated_at)
    values ($1, 'Bench', 'Shopper', 'bench@example.com', now(), now()) returning id),
  card as (
    insert into stored_card (merchant_id, shopper_id, fingerprint, sealed_number, brand, last_four,
      expiration_month, expiration_year, card_sub_type, card_category, created_at)
    select $1, id, 'bench', 'none', 'VISA', '1111', '12', '2031', 'CREDIT', 'CLASSIC', now() from shopper returning id, shopper_id)
  insert into card_transaction (merchant_id, shopper_id, card_id, type, status, currency, amount_minor,
    captured_minor, processing, authorized_at, created_at, updated_at)
  select $1, card.shopper_id, card.id, 'AUTH_CAPTURE', 'CAPTURED', 'USD', 1000 + g % 9000, 1000 + g % 9000,
         '{}'::jsonb, now() - g * interval '1 second', now(), now()
    from card, generate_series(1, $2) g`;

let failed = false;
try {
  database = await startBenchDatabase('reports-bench');
  const { databaseUrl, merchant } = database;
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  log(`writing ${rowsWanted} sales`);
  await db.query(seed, [merchant.id, rowsWanted]);
  await db.query('analyze');

  core = await startCore({
    databaseUrl,
    port: 0,
    mode: 'sandbox',
    cardEncryptionKey: randomBytes(32),
    log: createLogger('core', (line) => log(`core: ${line.trimEnd()}`), 'warn'),
  });
  facade = await startFacade(core.url, database.facadeCredential);

  const day = (offsetDays: number) => {
    const local = new Date(Date.now() - 8 * 3_600_000 + offsetDays * 86_400_000);
    return `${String(local.getUTCMonth() + 1).padStart(2, '0')}/${String(local.getUTCDate()).padStart(2, '0')}/${local.getUTCFullYear()}`;
  };
  const query = new URLSearchParams({
    period: 'CUSTOM',
    from_date: day(-30),
    to_date: day(1),
    format: 'csv',
  });
  const authorization = `Basic ${Buffer.from(`${merchant.username}:${merchant.password}`).toString('base64')}`;

  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 100);
  const started = performance.now();
  const response = await fetch(`${facade.baseUrl}/report/TransactionDetail?${query}`, {
    headers: { authorization },
    signal: AbortSignal.timeout(timeoutSeconds * 1000),
  });
  const firstByteMs = performance.now() - started;
  let lines = 0;
  let bytes = 0;
  for await (const chunk of response.body ?? []) {
    bytes += chunk.byteLength;
    for (const byte of chunk as Uint8Array) if (byte === 10) lines++;
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const rows = lines - 1; // the header line

  process.stdout.write(
    [
      '',
      `Reporting API CSV export, ${new Date().toISOString()}: TransactionDetail of ${rowsWanted} card sales of one merchant; core and facade in this process, durable embedded PostgreSQL`,
      '',
      '| figure | value |',
      '|---|---|',
      `| status, total-row-count | ${response.status}, ${response.headers.get('total-row-count')} |`,
      `| rows received | ${rows} (${megabytes(bytes)} of CSV) |`,
      `| first byte | ${firstByteMs.toFixed(0)} ms (the row count comes first) |`,
      `| **rows/s** | **${(rows / seconds).toFixed(0)}** (${seconds.toFixed(1)} s) |`,
      `| RSS before, peak (core and facade) | ${megabytes(rssBefore)}, ${megabytes(rssPeak)} |`,
      '',
    ].join('\n'),
  );
  if (response.status !== 200 || rows !== rowsWanted) {
    failed = true;
    log(`benchmark failed: status ${response.status}, ${rows} of ${rowsWanted} rows`);
  }
  if (rssPeak > 250 * 2 ** 20) {
    failed = true;
    log(`benchmark failed: peak RSS ${megabytes(rssPeak)} is over the 250 MB target`);
  }
} catch (error) {
  failed = true;
  log(`benchmark failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
