import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort } from '../support/ports.ts';
import { type BenchDatabase, startBenchDatabase, stopParts, stopsOnce } from './bench-database.ts';
import { benchProcesses } from './processes.ts';

/**
 * Reporting API export: N captured card sales of one merchant (written straight into the tables, spread
 * over the last days), then GET /services/2/report/TransactionDetail?format=csv for all of them, read by a
 * client that counts lines and bytes and keeps nothing. Core and facade run as the split deployment runs
 * them (two processes, the services' node options) on a durable embedded PostgreSQL; each one's RSS is
 * sampled every 100 ms. The report streams a batch of core's rows at a time; core's RSS must not grow with N
 * and stays under 250 MB.
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
let db: pg.Client | undefined;
const processes = benchProcesses();
const cleanup = stopsOnce(async () => {
  await processes.stop();
  await stopParts({ database, core: undefined, db }, log);
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

/** Each process's resident memory in whole MB. */
async function rssOf(of: {
  core: ChildProcess;
  facade: ChildProcess;
}): Promise<{ core: number; facade: number }> {
  const [core, facade] = await Promise.all([processes.rssMb(of.core), processes.rssMb(of.facade)]);
  return { core: Math.round(core), facade: Math.round(facade) };
}

/** Once the first login's hash has been given back: RSS no longer falling between two readings. */
async function waitForSettledRss(of: { core: ChildProcess; facade: ChildProcess }) {
  let last = await rssOf(of);
  for (let reading = 0; reading < 50; reading++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = await rssOf(of);
    if (now.core >= last.core) return now;
    last = now;
  }
  return last;
}

let failed = false;
try {
  database = await startBenchDatabase('reports-bench');
  const { databaseUrl, merchant } = database;
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  log(`writing ${rowsWanted} sales`);
  await db.query(seed, [merchant.id, rowsWanted]);
  await db.query('analyze');

  const corePort = await freePort();
  const facadePort = await freePort();
  const core = await processes.start('apps/core/src/main.ts', [], {
    DATABASE_URL: databaseUrl,
    CORE_PORT: String(corePort),
    CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  const facade = await processes.start('apps/facade/src/main.ts', [], {
    PORT: String(facadePort),
    HOST: '127.0.0.1',
    CORE_URL: `http://127.0.0.1:${corePort}/trpc`,
    CORE_CREDENTIAL: database.facadeCredential,
    LOG_REQUESTS: 'false',
  });

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

  const memory = { core, facade };
  const idle = await rssOf(memory);
  const peak = { ...idle };
  const sampler = setInterval(async () => {
    const now = await rssOf(memory).catch(() => idle);
    peak.core = Math.max(peak.core, now.core);
    peak.facade = Math.max(peak.facade, now.facade);
  }, 100);
  // The merchant's first call hashes its password (scrypt at OWASP's cost: 128 MiB for a moment, one hash at
  // a time by core's password gate); measured on its own, so the export's peak is the export's.
  const login = await fetch(
    `http://127.0.0.1:${facadePort}/services/2/report/TransactionDetail?${query}&pageSize=1`,
    {
      headers: { authorization, accept: 'application/json' },
    },
  );
  await login.arrayBuffer();
  if (login.status !== 200) throw new Error(`the first call answered ${login.status}`);
  const afterLogin = await waitForSettledRss(memory);
  const loginPeak = { ...peak };
  const before = afterLogin;
  Object.assign(peak, before);
  const started = performance.now();
  const response = await fetch(
    `http://127.0.0.1:${facadePort}/services/2/report/TransactionDetail?${query}`,
    {
      headers: { authorization },
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
    },
  );
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
      `Reporting API CSV export, ${new Date().toISOString()}: TransactionDetail of ${rowsWanted} card sales of one merchant; core and facade in processes of their own with the services' node options, durable embedded PostgreSQL`,
      '',
      '| figure | value |',
      '|---|---|',
      `| status, total-row-count | ${response.status}, ${response.headers.get('total-row-count')} |`,
      `| rows received | ${rows} (${megabytes(bytes)} of CSV) |`,
      `| first byte | ${firstByteMs.toFixed(0)} ms (the row count comes first) |`,
      `| **rows/s** | **${(rows / seconds).toFixed(0)}** (${seconds.toFixed(1)} s) |`,
      `| core RSS idle, peak of the first login | ${idle.core} MB, ${loginPeak.core} MB |`,
      `| core RSS before, peak of the export | ${before.core} MB, **${peak.core} MB** |`,
      `| facade RSS before, peak of the export | ${before.facade} MB, ${peak.facade} MB |`,
      '',
    ].join('\n'),
  );
  if (response.status !== 200 || rows !== rowsWanted) {
    failed = true;
    log(`benchmark failed: status ${response.status}, ${rows} of ${rowsWanted} rows`);
  }
  if (peak.core > 250) {
    failed = true;
    log(`benchmark failed: core's peak RSS ${peak.core} MB is over the 250 MB target`);
  }
} catch (error) {
  failed = true;
  log(`benchmark failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
