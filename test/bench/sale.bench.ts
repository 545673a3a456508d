import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { saveMerchant } from '../../infra/merchants.ts';
import { addAdyenTestAccount, adyenTestCard } from '../support/adyen.ts';
import { type NotificationItem, sign } from '../support/fake-adyen/index.ts';
import { saleBody } from '../support/http.ts';
import { freePort } from '../support/ports.ts';
import { startBenchDatabase } from './bench-database.ts';
import { benchProcesses } from './processes.ts';
import {
  busyRow,
  cpuRow,
  type Figures,
  paywireCpu,
  row,
  saleLoader,
  statusList,
  summarise,
} from './sale-load.ts';

/**
 * AUTH_CAPTURE sales, JSON, 256 connections, 10 s: the full service (facade and core as two processes,
 * as npm start runs them) beside a bare Koa + pg endpoint (a key insert and a payment insert in one
 * transaction) on the same database. Usage: npm run bench
 *
 * Latency mode (`npm run bench -- latency`): keyed sales at 256 connections against two services on the
 * same database, one whose sandbox acquirer answers at once and one whose acquirer takes 250 ms
 * (SANDBOX_ACQUIRER_LATENCY_MS), alternating; then the resident memory of each core and facade.
 *
 * Processors mode (`npm run bench -- processors`): keyed sales with Adyen's test card at 256 connections
 * through one service, alternating between a merchant whose payments go to the sandbox connector answering
 * after 250 ms and one whose payments go to its test account on a fake Adyen answering after 250 ms. The
 * fake (every request and answer validated against Adyen's documents) runs in a process of its own
 * (fake-adyen-server.ts), its CPU counted apart; its notifications go to Paywire's endpoint for the account.
 * Paywire's own cost per sale is facade + core + PostgreSQL. `--connections=N` runs another concurrency;
 * `--no-notifications` has the fake send none, to see what receiving them costs.
 *
 * `--single` (any mode) runs the service as one process (infra/single-process.ts, as npm start does) instead
 * of a facade and a core; its CPU is reported as `paywire`.
 *
 * Notifications mode (`npm run bench -- notifications`): Adyen's AUTHORISATION notifications alone, one
 * signed item per POST as Adyen sends them, each for a new pspReference, at the facade's endpoint for a
 * test account: what receiving one costs Paywire, apart from any sale.
 */
const mode = process.argv.includes('latency')
  ? 'latency'
  : process.argv.includes('processors')
    ? 'processors'
    : process.argv.includes('notifications')
      ? 'notifications'
      : 'sale';
const acquirerLatencyMs = 250;
// `--single`: the service as one process (infra/single-process.ts) instead of a facade and a core.
const single = process.argv.includes('--single');
// `--connections=N`: another concurrency, to see where a machine that cannot sustain 256 stops coping.
const connections = Number(
  process.argv.find((arg) => arg.startsWith('--connections='))?.slice('--connections='.length) ?? 256,
);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
// One run swings by 20% on a shared 2-core machine: the loads alternate, and the medians are reported.
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
// Free ports: other benchmarks may run on the same machine.
const ports = { bare: await freePort(), core: await freePort(), facade: await freePort() };

const database = await startBenchDatabase('sale-bench');
const { start, startAnnounced, stop, rssMb, cpuMs } = benchProcesses();

const { load, alternate } = saleLoader({ connections, seconds, rounds, dataDir: database.dataDir, cpuMs });

/** Until the facade on this port answers /readyz (the single process announces core before it). */
async function untilReady(port: number): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the service on ${port} was not ready after 60 s`);
}

/**
 * A core and its facade on the bench database: two processes, as the split deployment runs them, or with
 * `--single` one (infra/single-process.ts), as npm start runs them.
 */
async function startService(
  corePort: number,
  facadePort: number,
  env: Record<string, string> = {},
): Promise<{
  core: ChildProcess;
  facade: ChildProcess;
  processes: Record<string, ChildProcess>;
  url: string;
}> {
  const { databaseUrl, facadeCredential } = database;
  const url = `http://127.0.0.1:${facadePort}/services/2/transactions`;
  if (single) {
    const paywire = await start('infra/single-process.ts', [], {
      DATABASE_URL: databaseUrl,
      CORE_PORT: String(corePort),
      CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      PORT: String(facadePort),
      HOST: '127.0.0.1',
      CORE_CREDENTIAL: facadeCredential,
      LOG_REQUESTS: 'false',
      ...env,
    });
    await untilReady(facadePort);
    return { core: paywire, facade: paywire, processes: { paywire }, url };
  }
  const core = await start('apps/core/src/main.ts', [], {
    DATABASE_URL: databaseUrl,
    CORE_PORT: String(corePort),
    CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ...env,
  });
  const facade = await start('apps/facade/src/main.ts', [], {
    PORT: String(facadePort),
    HOST: '127.0.0.1',
    CORE_URL: `http://127.0.0.1:${corePort}/trpc`,
    CORE_CREDENTIAL: facadeCredential,
    LOG_REQUESTS: 'false',
  });
  return { core, facade, processes: { facade, core }, url };
}

const header = `AUTH_CAPTURE sale, JSON, ${connections} connections, ${seconds} s per run, median of ${rounds} alternating rounds, durable PostgreSQL (embedded), ${new Date().toISOString()}`;

/** Keyed sales with an instant acquirer and with a 250 ms one, alternating; then each process's memory. */
async function latencyBench(authorization: string): Promise<string[]> {
  const instant = await startService(ports.core, ports.facade);
  const latent = await startService(await freePort(), await freePort(), {
    SANDBOX_ACQUIRER_LATENCY_MS: String(acquirerLatencyMs),
  });
  const [fast, slow] = (
    await alternate([
      () => load(instant.url, instant.processes, { authorization, keyed: true }),
      () => load(latent.url, latent.processes, { authorization, keyed: true }),
    ])
  ).map(summarise) as [Figures, Figures];
  const memory = await Promise.all(
    [instant.core, instant.facade, latent.core, latent.facade].map((child) => rssMb(child)),
  );
  return [
    '| keyed sales, acquirer | requests/s | p50 ms | p99 ms | errors |',
    '|---|---|---|---|---|',
    row('instant', fast),
    row(`${acquirerLatencyMs} ms`, slow),
    `${acquirerLatencyMs} ms / instant throughput: ${(slow.rps / fast.rps).toFixed(2)}`,
    cpuRow('instant', fast),
    cpuRow(`${acquirerLatencyMs} ms`, slow),
    `RSS after the runs, MB: core ${memory[0]?.toFixed(0)} and facade ${memory[1]?.toFixed(0)} (instant), core ${memory[2]?.toFixed(0)} and facade ${memory[3]?.toFixed(0)} (${acquirerLatencyMs} ms)`,
  ];
}

const bareCpu = (f: Figures) => (f.cpu.bare ?? 0) + (f.cpu.postgres ?? 0);

/** What the fake Adyen process counted since it started (fake-adyen-server.ts). */
interface FakeStats {
  requests: number;
  violations: string[];
  accepted: number;
  refused: number;
  statuses: Record<string, number>;
  pending: number;
}
function fakeStats(fake: ChildProcess): Promise<FakeStats> {
  return new Promise((resolve) => {
    const read = (chunk: Buffer) => {
      const line = chunk
        .toString()
        .split('\n')
        .find((text) => text.startsWith('stats '));
      if (line === undefined) return;
      fake.stdout?.off('data', read);
      resolve(JSON.parse(line.slice('stats '.length)) as FakeStats);
    };
    fake.stdout?.on('data', read);
    fake.stdin?.write(`${JSON.stringify({ stats: true })}\n`);
  });
}

/**
 * Keyed sales with Adyen's test card through one service (sandbox acquirer at 250 ms), alternating between a
 * merchant without processor accounts (its payments go to the sandbox connector) and one whose default
 * account is a test account on a fake Adyen answering after 250 ms, in a process of its own.
 */
async function processorsBench(sandboxAuthorization: string): Promise<string[]> {
  const { databaseUrl } = database;
  const cardKey = randomBytes(32);
  const apiKey = `AQE-${randomBytes(16).toString('hex')}`;
  const merchantAccount = 'PaywireBenchECOM';
  const hmacKeyHex = randomBytes(32).toString('hex');
  // The fake keeps every payment and answer: more heap than a service process is given.
  const { child: fake, line } = await startAnnounced(
    'test/bench/fake-adyen-server.ts',
    [apiKey, merchantAccount, String(acquirerLatencyMs), hmacKeyHex],
    { NODE_OPTIONS: '--max-old-space-size=2048' },
  );
  const fakeUrl = line.slice(line.indexOf('http')).trim();

  // The Adyen merchant and its test account (its default, being its first), added as the operator CLI does.
  const password = randomBytes(12).toString('base64url');
  const merchantId = await saveMerchant(databaseUrl, 'bench-adyen', password);
  const notification = { username: 'adyen-bench', password: randomBytes(12).toString('hex') };
  const accountId = await addAdyenTestAccount(databaseUrl, cardKey, {
    merchantId,
    apiKey,
    merchantAccount,
    hmacKeyHex,
    endpoint: fakeUrl,
    notification,
  });
  const facadeOrigin = `http://127.0.0.1:${ports.facade}`;
  // `--no-notifications`: the fake sends none, to see what receiving them costs Paywire.
  if (!process.argv.includes('--no-notifications'))
    fake.stdin?.write(
      `${JSON.stringify({ notify: { url: `${facadeOrigin}/processors/adyen/${accountId}/notifications`, ...notification } })}\n`,
    );

  const service = await startService(ports.core, ports.facade, {
    SANDBOX_ACQUIRER_LATENCY_MS: String(acquirerLatencyMs),
    CARD_ENCRYPTION_KEY: cardKey.toString('base64'),
  });
  const processes = { ...service.processes, 'fake Adyen': fake };
  const sale = saleBody({ creditCard: adyenTestCard });
  const adyenAuthorization = `Basic ${Buffer.from(`bench-adyen:${password}`).toString('base64')}`;
  const [sandbox, adyen] = (
    await alternate([
      () => load(service.url, processes, { authorization: sandboxAuthorization, keyed: true, sale }),
      () => load(service.url, processes, { authorization: adyenAuthorization, keyed: true, sale }),
    ])
  ).map(summarise) as [Figures, Figures];
  await new Promise((resolve) => setTimeout(resolve, 2000)); // the last notifications' delivery
  const stats = await fakeStats(fake);
  const memory = [await rssMb(service.core), await rssMb(service.facade), await rssMb(fake)];
  const ratio = adyen.rps / sandbox.rps;
  const cpuRatio = paywireCpu(adyen) / paywireCpu(sandbox);
  const refusedStatuses = Object.entries(stats.statuses)
    .map(([status, count]) => `${status} x${count}`)
    .join(', ');
  return [
    `| keyed sales, Adyen's test card, connector answering after ${acquirerLatencyMs} ms | requests/s | p50 ms | p99 ms | errors |`,
    '|---|---|---|---|---|',
    row('sandbox', sandbox),
    row('fake Adyen (test account, own process)', adyen),
    `non-2xx by status: sandbox ${statusList(sandbox)}; Adyen ${statusList(adyen)}`,
    `adyen / sandbox throughput: ${sandbox.rps > 0 ? ratio.toFixed(2) : 'n/a, no sandbox sale answered'} (target 0.80 or more)`,
    `adyen p99: ${adyen.rps > 0 ? `${Math.round(adyen.p99)} ms` : 'n/a, no sale answered (the CPU figures below are then per run, not per sale)'} (target under 1500)`,
    cpuRow('sandbox', sandbox),
    cpuRow('adyen', adyen),
    busyRow('sandbox', sandbox),
    busyRow('adyen', adyen),
    `Paywire's CPU ms per sale (facade + core + PostgreSQL): sandbox ${paywireCpu(sandbox).toFixed(2)}, adyen ${paywireCpu(adyen).toFixed(2)}; adyen / sandbox ${cpuRatio.toFixed(2)} (target 1.10 or less)`,
    `fake Adyen: CPU ms per sale ${(adyen.cpu['fake Adyen'] ?? 0).toFixed(2)}, ${((adyen.busy['fake Adyen'] ?? 0) * 100).toFixed(0)}% of one core busy; ${stats.requests} requests, ${stats.violations.length} violations${stats.violations.length ? ` (${stats.violations.slice(0, 3).join('; ')})` : ''}; notifications ${stats.accepted} accepted, ${stats.refused} refused${refusedStatuses ? ` (${refusedStatuses})` : ''}, ${stats.pending} pending or unanswered`,
    `RSS after the runs, MB: core ${memory[0]?.toFixed(0)}, facade ${memory[1]?.toFixed(0)}, fake Adyen ${memory[2]?.toFixed(0)}`,
  ];
}

/**
 * Adyen's AUTHORISATION notifications alone, each for a new payment, at a test account's endpoint: what
 * receiving one costs Paywire (facade, core, PostgreSQL), with no sale beside it.
 */
async function notificationsBench(): Promise<string[]> {
  const cardKey = randomBytes(32);
  const hmacKeyHex = randomBytes(32).toString('hex');
  const merchantAccount = 'PaywireBenchECOM';
  const notification = { username: 'adyen-bench', password: randomBytes(12).toString('hex') };
  const merchantId = await saveMerchant(
    database.databaseUrl,
    'bench-notified',
    randomBytes(12).toString('hex'),
  );
  const accountId = await addAdyenTestAccount(database.databaseUrl, cardKey, {
    merchantId,
    apiKey: `AQE-${randomBytes(16).toString('hex')}`,
    merchantAccount,
    hmacKeyHex,
    endpoint: 'http://127.0.0.1:9/', // never called: no sale runs
    notification,
  });
  const service = await startService(ports.core, ports.facade, {
    CARD_ENCRYPTION_KEY: cardKey.toString('base64'),
  });
  const bodyOf = () => {
    const item: NotificationItem = {
      pspReference: randomBytes(8).toString('hex').toUpperCase(),
      merchantAccountCode: merchantAccount,
      merchantReference: randomUUID(),
      amount: { currency: 'USD', value: 1000 },
      eventCode: 'AUTHORISATION',
      eventDate: new Date().toISOString(),
      success: 'true',
      paymentMethod: 'visa',
    };
    const signed = { ...item, additionalData: { hmacSignature: sign(item, hmacKeyHex) } };
    return JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: signed }] });
  };
  const url = `http://127.0.0.1:${ports.facade}/processors/adyen/${accountId}/notifications`;
  const authorization = `Basic ${Buffer.from(`${notification.username}:${notification.password}`).toString('base64')}`;
  const [received] = (await alternate([() => load(url, service.processes, { authorization, bodyOf })])).map(
    summarise,
  ) as [Figures];
  return [
    '| Adyen AUTHORISATION notifications, one item per POST | requests/s | p50 ms | p99 ms | errors |',
    '|---|---|---|---|---|',
    row('received', received),
    `non-2xx by status: ${statusList(received)}`,
    cpuRow('notification', received),
    `Paywire's CPU ms per notification (facade + core + PostgreSQL): ${paywireCpu(received).toFixed(2)}`,
  ];
}

try {
  const { databaseUrl, merchant } = database;
  const merchantId = merchant.id;
  const authorization = `Basic ${Buffer.from(`${merchant.username}:${merchant.password}`).toString('base64')}`;
  if (mode === 'latency') {
    process.stdout.write([header, ...(await latencyBench(authorization)), ''].join('\n'));
  } else if (mode === 'notifications') {
    process.stdout.write([header, ...(await notificationsBench()), ''].join('\n'));
  } else if (mode === 'processors') {
    process.stdout.write([header, ...(await processorsBench(authorization)), ''].join('\n'));
  } else {
    const bareServer = await start('test/bench/bare-server.ts', [
      databaseUrl,
      String(ports.bare),
      String(merchantId),
    ]);
    const service = await startService(ports.core, ports.facade);
    const [bare, full, keyed] = (
      await alternate([
        () => load(`http://127.0.0.1:${ports.bare}/sale`, { bare: bareServer }),
        () => load(service.url, service.processes, { authorization }),
        () => load(service.url, service.processes, { authorization, keyed: true }),
      ])
    ).map(summarise) as [Figures, Figures, Figures];
    const memory = [await rssMb(service.core), await rssMb(service.facade)];
    process.stdout.write(
      [
        header,
        '| endpoint | requests/s | p50 ms | p99 ms | errors |',
        '|---|---|---|---|---|',
        row('bare Koa + pg (key + payment insert)', bare),
        row('Paywire full path (facade -> tRPC -> core)', full),
        row('Paywire full path, fresh Idempotency-Key per request', keyed),
        `plain / bare throughput: ${(full.rps / bare.rps).toFixed(2)} (target 0.60 or more)`,
        `keyed / bare throughput: ${(keyed.rps / bare.rps).toFixed(2)} (target 0.60 or more)`,
        cpuRow('bare', bare),
        cpuRow('plain', full),
        cpuRow('keyed', keyed),
        single
          ? `RSS after the runs, MB: the single process ${memory[0]?.toFixed(0)}`
          : `RSS after the runs, MB: core ${memory[0]?.toFixed(0)}, facade ${memory[1]?.toFixed(0)}`,
        `Paywire's CPU ms per plain sale (${single ? 'one process' : 'facade + core'} + PostgreSQL): ${paywireCpu(full).toFixed(2)}, ${(paywireCpu(full) / bareCpu(bare)).toFixed(2)}x the bare endpoint's (bare + PostgreSQL ${bareCpu(bare).toFixed(2)})`,
        '',
      ].join('\n'),
    );
  }
} finally {
  await stop();
  await database.stop();
}
