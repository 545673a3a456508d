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
import { saleBody } from '../support/http.ts';
import { freePort } from '../support/ports.ts';
import { type BenchDatabase, startBenchDatabase } from './bench-database.ts';

/**
 * IPN delivery: 10 000 deliveries produced as fast as possible (AUTH_CAPTURE sales through core's tRPC
 * cards.create, 32 in flight, each making a CHARGE event for every enabled destination), received by an
 * HTTP receiver in this process that answers 200 at once. Reports deliveries/s over the whole run and the
 * lag from commit (ipn_delivery.created_at, read back afterwards) to receipt (this process's clock; same
 * machine). Core runs as its own process, on its own durable embedded PostgreSQL.
 * Usage: node test/bench/ipn.bench.ts [--deliveries 10000] [--destinations 1] [--timeout-seconds 600]
 * (with several destinations, deliveries / destinations sales make the deliveries).
 */
const { values: args } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '10000' },
    destinations: { type: 'string', default: '1' },
    'timeout-seconds': { type: 'string', default: '600' },
  },
});
const deliveriesWanted = Number(args.deliveries);
const destinations = Math.min(10, Math.max(1, Number(args.destinations)));
const timeoutSeconds = Number(args['timeout-seconds']);
const inFlight = 32;
const sales = Math.ceil(deliveriesWanted / destinations);
const root = fileURLToPath(new URL('../..', import.meta.url));

const wallClock = () => performance.timeOrigin + performance.now();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`${line}\n`);

// Everything started is registered here and stopped by cleanup(), on success, failure or a signal.
let database: BenchDatabase | undefined;
let core: ChildProcess | undefined;
let receiver: Server | undefined;
let db: pg.Client | undefined;
let cleaning: Promise<void> | undefined;

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

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await db?.end().catch(() => {});
    await stopCore().catch((error: unknown) => log(`stopping core: ${String(error)}`));
    if (receiver) {
      const server = receiver;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
    await database?.stop().catch((error: unknown) => log(`stopping PostgreSQL: ${String(error)}`));
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping everything the benchmark started`);
    void cleanup().finally(() => process.exit(130));
  });
}

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

async function startReceiver(): Promise<number> {
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
  receiver = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN);

let failed = false;
try {
  database = await startBenchDatabase('ipn-bench');
  const { databaseUrl } = database;
  const merchantId = database.merchant.id;

  const receiverPort = await startReceiver();
  const corePort = await freePort();
  await startCore({
    DATABASE_URL: databaseUrl,
    CORE_PORT: String(corePort),
    CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    IPN_RETRY_DELAY_SECONDS: '1',
    IPN_ALLOW_PRIVATE_TARGETS: 'true', // the receiver is on 127.0.0.1
  });
  const client = createPaywireClient({
    url: `http://127.0.0.1:${corePort}/trpc`,
    credential: database.facadeCredential,
  });
  const asMerchant = (ms: number) => ({
    context: { paywire: { merchantId } },
    signal: AbortSignal.timeout(ms),
  });

  await client.ipn.replaceConfig.mutate(
    {
      ipnDestinations: Array.from({ length: destinations }, (_, n) => ({
        ipnUrl: `http://127.0.0.1:${receiverPort}/ipn/${n}`,
        sendCharge: true,
      })),
      ensureNotificationReceipt: false,
      receiveAffiliateNotifications: false,
    },
    asMerchant(10_000),
  );

  const input = validate(createTransactionInput, saleBody());
  // Warm-up outside the measurement: the first sales pay for connections and JIT; their deliveries are
  // waited for and left out of the figures.
  for (let n = 0; n < 20; n++) await client.cards.create.mutate(input, asMerchant(30_000));
  const warmDeadline = Date.now() + 30_000;
  while (received.size < 20 * destinations && Date.now() < warmDeadline) await pause(50);
  if (received.size < 20 * destinations) throw new Error('warm-up deliveries did not arrive within 30 s');
  received.clear();
  requests = 0;
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const { rows: warm } = await db.query<{ max: string | null }>('select max(id) as max from ipn_delivery');
  const firstMeasuredId = Number(warm[0]?.max ?? 0) + 1;

  log(`producing ${sales} sales x ${destinations} destination(s), ${inFlight} in flight`);
  const deadline = Date.now() + timeoutSeconds * 1000;
  const started = wallClock();
  let next = 0;
  let saleErrors = 0;
  let sold = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < sales && Date.now() < deadline) {
        next++;
        try {
          await client.cards.create.mutate(input, asMerchant(30_000));
          sold++;
        } catch (error) {
          if (++saleErrors <= 5) log(`sale failed: ${String(error)}`);
        }
      }
    }),
  );
  const produced = wallClock();
  const expected = sold * destinations;
  log(`${sold} sales in ${((produced - started) / 1000).toFixed(1)} s; waiting for ${expected} deliveries`);

  let lastReport = Date.now();
  while (received.size < expected && Date.now() < deadline) {
    await pause(100);
    if (Date.now() - lastReport >= 5_000) {
      lastReport = Date.now();
      log(`  ${received.size} / ${expected} received`);
    }
  }
  const finished = Math.max(...received.values(), produced);
  const complete = received.size >= expected;

  const { rows } = await db.query<{ id: string; created_ms: string; state: string }>(
    `select id, extract(epoch from created_at) * 1000 as created_ms, state from ipn_delivery where id >= $1`,
    [firstMeasuredId],
  );
  const lags: number[] = [];
  const states = new Map<string, number>();
  for (const row of rows) {
    states.set(row.state, (states.get(row.state) ?? 0) + 1);
    const at = received.get(`ipn_${row.id}`);
    if (at !== undefined) lags.push(at - Number(row.created_ms));
  }
  lags.sort((a, b) => a - b);
  const seconds = (finished - started) / 1000;
  const ms = (value: number) => value.toFixed(0);

  process.stdout.write(
    [
      '',
      `IPN delivery, ${new Date().toISOString()}: ${sold} AUTH_CAPTURE sales through core's tRPC (${inFlight} in flight) x ${destinations} destination(s); receiver on 127.0.0.1 answering 200 at once; durable embedded PostgreSQL; core as a child process (16 delivery workers)`,
      '',
      '| figure | value |',
      '|---|---|',
      `| deliveries received (distinct webhook-id) | ${received.size} of ${expected}${complete ? '' : ' (INCOMPLETE: timed out)'} |`,
      `| duplicate requests | ${requests - received.size} |`,
      `| whole run (first sale to last receipt) | ${seconds.toFixed(1)} s |`,
      `| **deliveries/s, whole run** | **${(received.size / seconds).toFixed(0)}** |`,
      `| sales/s while producing | ${(sold / ((produced - started) / 1000)).toFixed(0)} |`,
      `| drain after the last sale | ${((finished - produced) / 1000).toFixed(1)} s |`,
      `| **lag commit -> receipt p50** | **${ms(percentile(lags, 50))} ms** |`,
      `| **lag commit -> receipt p99** | **${ms(percentile(lags, 99))} ms** |`,
      `| lag max | ${ms(lags.at(-1) ?? Number.NaN)} ms |`,
      `| rows by state | ${[...states].map(([state, count]) => `${state} ${count}`).join(', ')} |`,
      `| sale errors | ${saleErrors} |`,
      '',
      'commit = ipn_delivery.created_at (now() of the sale transaction, so a little before its commit); receipt = the receiver clock.',
      '',
    ].join('\n'),
  );
  if (!complete || saleErrors > 0) failed = true;
} catch (error) {
  failed = true;
  log(`benchmark failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
