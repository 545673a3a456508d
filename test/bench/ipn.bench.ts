import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPaywireClient } from '@paywire/client';
import { createTransactionInput, validate } from '@paywire/contracts';
import pg from 'pg';
import { saveMerchant } from '../../infra/merchants.ts';
import { saleBody } from '../support/http.ts';
import { hookConfig } from '../support/ipn-receiver.ts';
import { freePort } from '../support/ports.ts';
import { type BenchDatabase, startBenchDatabase, stopsOnce } from './bench-database.ts';

/**
 * IPN delivery. Core runs as its own process on its own durable embedded PostgreSQL; receivers are HTTP
 * servers in this process on 127.0.0.1 (one answering 200 at once, one that never answers). Scenarios:
 * - backlog: N due deliveries to one destination inserted at once (no sales), then drained: deliveries/s;
 * - baseline: AUTH_CAPTURE sales through core's tRPC at a fixed rate with no IPN destination;
 * - steady: the same sales with D destinations: lag commit -> receipt p50/p99, sales/s against baseline;
 * - dead: steady plus one destination that never answers (each attempt times out after 10 s), of a second
 *   merchant (a merchant has at most 10 destinations) whose sales run alongside at --dead-rate: the
 *   healthy destinations' lag.
 * Usage: node test/bench/ipn.bench.ts [--scenario all|backlog|baseline|steady|dead] [--deliveries 10000]
 *   [--rate 100] [--dead-rate 10] [--seconds 30] [--destinations 10]  (scenarios may be listed: --scenario baseline,steady)
 * commit = ipn_delivery.created_at (now() of the sale's transaction, a little before its commit); receipt
 * = this process's clock when the request body arrived (same machine).
 */
const { values: args } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'all' },
    deliveries: { type: 'string', default: '10000' },
    rate: { type: 'string', default: '100' },
    'dead-rate': { type: 'string', default: '10' },
    seconds: { type: 'string', default: '30' },
    destinations: { type: 'string', default: '10' },
  },
});
const scenarios = ['backlog', 'baseline', 'steady', 'dead'] as const;
type Scenario = (typeof scenarios)[number];
const chosen: Scenario[] =
  args.scenario === 'all'
    ? [...scenarios]
    : args.scenario.split(',').map((name) => {
        if (!(scenarios as readonly string[]).includes(name)) throw new Error(`unknown scenario ${name}`);
        return name as Scenario;
      });
const backlogSize = Number(args.deliveries);
const rate = Number(args.rate);
const deadRate = Number(args['dead-rate']);
const seconds = Number(args.seconds);
const destinations = Math.min(10, Math.max(1, Number(args.destinations)));
const drainSeconds = 60;
const root = fileURLToPath(new URL('../..', import.meta.url));

const wallClock = () => performance.timeOrigin + performance.now();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`${line}\n`);

// Everything started is registered here and stopped by cleanup(), on success, failure or a signal.
let database: BenchDatabase | undefined;
let core: ChildProcess | undefined;
const servers: Server[] = [];
let db: pg.Client | undefined;

async function stopCore(): Promise<void> {
  const child = core;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const graceful = await Promise.race([exited.then(() => true), pause(8_000).then(() => false)]);
  if (!graceful) {
    child.kill('SIGKILL');
    await Promise.race([exited, pause(2_000)]);
  }
}

const cleanup = stopsOnce(async () => {
  await db?.end().catch(() => {});
  for (const server of servers) server.closeAllConnections();
  await stopCore().catch((error: unknown) => log(`stopping core: ${String(error)}`));
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
  await database?.stop().catch((error: unknown) => log(`stopping PostgreSQL: ${String(error)}`));
}, log);

/** The core process, ready when it logs "listening"; bounded, and failing if it exits first. */
function startCore(env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, [path.join(root, 'apps/core/src/main.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  core = child;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('core did not listen within 30 s')), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`core exited with ${code ?? signal}`));
    });
  });
}

/** Receipt time of each webhook-id (the first one; later ones are duplicates). */
const received = new Map<string, number>();
let requests = 0;

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Answers 200 at once and records the receipt. */
const startReceiver = () => {
  const server = createServer((request, response) => {
    request.resume(); // the body is not needed, only its arrival
    request.on('end', () => {
      const at = wallClock();
      requests++;
      const id = String(request.headers['webhook-id'] ?? '');
      if (!received.has(id)) received.set(id, at);
      response.writeHead(200, { 'content-length': '0' }).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  return listen(server);
};

/** Takes every request and never answers. */
let deadRequests = 0;
const startDeadReceiver = () =>
  listen(
    createServer((request) => {
      deadRequests++;
      request.resume();
    }),
  );

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN);
const ms = (value: number) => `${value.toFixed(0)} ms`;

async function untilReceived(expected: number, deadline: number): Promise<void> {
  let lastReport = Date.now();
  while (received.size < expected && Date.now() < deadline) {
    await pause(50);
    if (Date.now() - lastReport >= 5_000) {
      lastReport = Date.now();
      log(`  ${received.size} / ${expected} received`);
    }
  }
}

/** Lags commit -> receipt of the deliveries from `firstId` on to the given destinations (sorted). */
async function lagsOf(firstId: number, urls: string[]): Promise<number[]> {
  const { rows } = await (db as pg.Client).query<{ id: string; created_ms: string }>(
    `select id, extract(epoch from created_at) * 1000 as created_ms from ipn_delivery
      where id >= $1 and destination = any($2::text[])`,
    [firstId, urls],
  );
  const lags: number[] = [];
  for (const row of rows) {
    const at = received.get(`ipn_${row.id}`);
    if (at !== undefined) lags.push(at - Number(row.created_ms));
  }
  return lags.sort((a, b) => a - b);
}

const nextId = async () => {
  const { rows } = await (db as pg.Client).query<{ max: string | null }>('select max(id) from ipn_delivery');
  return Number(rows[0]?.max ?? 0) + 1;
};

const results: string[] = [];
const row = (figure: string, value: string) => results.push(`| ${figure} | ${value} |`);

let failed = false;
try {
  database = await startBenchDatabase('ipn-bench');
  const { databaseUrl } = database;
  const merchantId = database.merchant.id;
  const receiverPort = await startReceiver();
  const deadPort = await startDeadReceiver();
  const corePort = await freePort();
  await startCore({
    DATABASE_URL: databaseUrl,
    CORE_PORT: String(corePort),
    CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    IPN_RETRY_DELAY_SECONDS: '1',
    IPN_ALLOW_PRIVATE_TARGETS: 'true', // the receivers are on 127.0.0.1
  });
  const client = createPaywireClient({
    url: `http://127.0.0.1:${corePort}/trpc`,
    credential: database.facadeCredential,
  });
  const deadMerchantId = await saveMerchant(databaseUrl, 'bench-dead', randomBytes(12).toString('base64url'));
  const asMerchant = (timeout: number, id = merchantId) => ({
    context: { paywire: { merchantId: id } },
    signal: AbortSignal.timeout(timeout),
  });
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const input = validate(createTransactionInput, saleBody());
  const healthy = (scenario: string, count: number) =>
    Array.from({ length: count }, (_, n) => `http://127.0.0.1:${receiverPort}/${scenario}/${n}`);
  const configure = async (urls: string[], id = merchantId) => {
    if (urls.length === 0) await client.ipn.deleteConfig.mutate(undefined, asMerchant(10_000, id));
    else await client.ipn.replaceConfig.mutate(hookConfig(urls, ['sendCharge']), asMerchant(10_000, id));
  };

  // Warm-up outside the measurement: connections, JIT, the merchant's secret.
  await configure(healthy('warm', 1));
  for (let n = 0; n < 50; n++) await client.cards.create.mutate(input, asMerchant(30_000));
  await untilReceived(50, Date.now() + 30_000);
  if (received.size < 50) throw new Error('warm-up deliveries did not arrive within 30 s');

  /** Sales at `perSecond` for `seconds` s (each started on schedule, whatever the others do). */
  const sell = async (perSecond: number, id = merchantId) => {
    const total = perSecond * seconds;
    const latencies: number[] = [];
    let errors = 0;
    const started = wallClock();
    await Promise.all(
      Array.from({ length: total }, async (_, n) => {
        const due = started + (n * 1000) / perSecond;
        await pause(Math.max(0, due - wallClock()));
        const begun = wallClock();
        try {
          await client.cards.create.mutate(input, asMerchant(30_000, id));
          latencies.push(wallClock() - begun);
        } catch (error) {
          if (++errors <= 5) log(`sale failed: ${String(error)}`);
        }
      }),
    );
    const elapsed = (wallClock() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return { sold: latencies.length, errors, perSecond: latencies.length / elapsed, latencies, elapsed };
  };
  let baselineRate: number | undefined;

  for (const scenario of chosen) {
    // Each scenario starts from a settled database: the previous one's dead rows vacuumed, its writes
    // checkpointed (otherwise autovacuum and a checkpoint after the backlog land in the next scenario).
    await db.query('vacuum analyze ipn_delivery');
    await db.query('checkpoint');
    received.clear();
    requests = 0;
    const firstId = await nextId();
    if (scenario === 'backlog') {
      const [url] = healthy('backlog', 1) as [string];
      // Inserted due 2 s from now, so the drain starts from a full backlog, not while rows arrive.
      await db.query(
        `insert into ipn_delivery (merchant_id, event, reference_number, destination, body, max_attempts, next_try_at)
         select $1, 'Charge', 'bench-' || n, $2, 'transactionType=CHARGE&referenceNumber=bench-' || n, 11,
                now() + interval '2 seconds'
           from generate_series(1, $3::int) n`,
        [merchantId, url, backlogSize],
      );
      const { rows } = await db.query<{ due_ms: string }>(
        'select extract(epoch from max(next_try_at)) * 1000 as due_ms from ipn_delivery where id >= $1',
        [firstId],
      );
      log(`backlog: ${backlogSize} deliveries due to one destination`);
      await untilReceived(backlogSize, Date.now() + drainSeconds * 1000);
      const drained = (Math.max(...received.values()) - Number(rows[0]?.due_ms)) / 1000;
      row(
        `backlog: **deliveries/s** (${backlogSize} due at once, one destination)`,
        `**${(received.size / drained).toFixed(0)}**${received.size < backlogSize ? ` (INCOMPLETE ${received.size})` : ''}`,
      );
      row('backlog: drained in', `${drained.toFixed(1)} s, ${requests - received.size} duplicates`);
      continue;
    }
    const urls = scenario === 'baseline' ? [] : healthy(scenario, destinations);
    const dead = scenario === 'dead' ? [`http://127.0.0.1:${deadPort}/dead`] : [];
    await configure(urls);
    await configure(dead, deadMerchantId);
    log(
      `${scenario}: sales at ${rate}/s for ${seconds} s, ${urls.length} destination(s)${dead.length ? ` + a merchant selling at ${deadRate}/s to one that never answers` : ''}`,
    );
    const [sales] = await Promise.all([sell(rate), dead.length ? sell(deadRate, deadMerchantId) : undefined]);
    const expected = sales.sold * urls.length;
    await untilReceived(expected, Date.now() + drainSeconds * 1000);
    const label = `${scenario}${urls.length ? ` (${urls.length}${dead.length ? ' + 1 dead' : ''} destinations)` : ' (no IPN)'}`;
    row(
      `${label}: sales/s (offered ${rate}/s)`,
      `${sales.perSecond.toFixed(1)}${baselineRate ? ` (${((sales.perSecond / baselineRate - 1) * 100).toFixed(1)}% vs baseline)` : ''}, latency p50 ${ms(percentile(sales.latencies, 50))} p99 ${ms(percentile(sales.latencies, 99))}, ${sales.errors} errors`,
    );
    if (scenario === 'baseline') {
      baselineRate = sales.perSecond;
      continue;
    }
    const lags = await lagsOf(firstId, urls);
    row(
      `${label}: deliveries received`,
      `${received.size} of ${expected}${received.size < expected ? ' (INCOMPLETE)' : ''}, ${requests - received.size} duplicates, ${(received.size / sales.elapsed).toFixed(0)}/s`,
    );
    row(
      `${label}: **lag commit -> receipt p50 / p99 / max**`,
      `**${ms(percentile(lags, 50))} / ${ms(percentile(lags, 99))}** / ${ms(lags.at(-1) ?? Number.NaN)}`,
    );
    if (dead.length) row(`${label}: attempts at the dead destination`, String(deadRequests));
    if (received.size < expected || sales.errors > 0) failed = true;
  }

  process.stdout.write(
    [
      '',
      `IPN delivery, ${new Date().toISOString()}: core as a child process, durable embedded PostgreSQL, receivers on 127.0.0.1 in the benchmark process; machine shared (figures are noisy)`,
      '',
      '| figure | value |',
      '|---|---|',
      ...results,
      '',
    ].join('\n'),
  );
} catch (error) {
  failed = true;
  log(`benchmark failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
