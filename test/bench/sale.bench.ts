import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import autocannon, { type Result } from 'autocannon';
import { saleBody } from '../support/http.ts';
import { freePort } from '../support/ports.ts';
import { startBenchDatabase } from './bench-database.ts';
import { benchProcesses, postgresCpuMs } from './processes.ts';

/**
 * AUTH_CAPTURE sales, JSON, 256 connections, 10 s: the full service (facade and core as two processes,
 * as npm start runs them) beside a bare Koa + pg endpoint (a key insert and a payment insert in one
 * transaction) on the same database. Usage: npm run bench
 *
 * Latency mode (`npm run bench -- latency`): keyed sales at 256 connections against two services on the
 * same database, one whose sandbox acquirer answers at once and one whose acquirer takes 250 ms
 * (SANDBOX_ACQUIRER_LATENCY_MS), alternating; then the resident memory of each core and facade.
 */
const latencyMode = process.argv.includes('latency');
const acquirerLatencyMs = 250;
const connections = 256;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
// One run swings by 20% on a shared 2-core machine: the loads alternate, and the medians are reported.
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
// Free ports: other benchmarks may run on the same machine.
const ports = { bare: await freePort(), core: await freePort(), facade: await freePort() };

const database = await startBenchDatabase('sale-bench');
const { start, stop, rssMb, cpuMs } = benchProcesses();

/** A run's figures, and the CPU time each process spent per request it answered, in ms. */
type Run = Result & { cpu: Record<string, number> };

/** What each process (the load generator, the ones given, each of PostgreSQL's) has used of the CPU, in ms. */
async function cpuNow(processes: Record<string, ChildProcess>): Promise<Record<string, number>> {
  const { user, system } = process.cpuUsage();
  const named = await Promise.all(
    Object.entries(processes).map(async ([name, child]) => [name, await cpuMs(child)] as const),
  );
  const postgres = await postgresCpuMs(database.dataDir);
  return {
    'load generator': (user + system) / 1000,
    ...Object.fromEntries(named),
    ...Object.fromEntries([...postgres].map(([pid, ms]) => [`postgres ${pid}`, ms])),
  };
}

async function load(
  url: string,
  processes: Record<string, ChildProcess>,
  authorization?: string,
  keyed = false,
): Promise<Run> {
  const body = JSON.stringify(saleBody());
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(authorization ? { authorization } : {}),
  };
  // Every load builds each request afresh with a unique header, so the load generator does the same work in
  // all three runs (on this machine it shares the CPU with the service). The keyed run sends it as
  // Idempotency-Key: every sale runs, and every one pays for its key record. The others send an ignored one.
  const header = keyed ? 'idempotency-key' : 'x-request-id';
  const requests = [
    {
      setupRequest: (request: { headers?: Record<string, string> }) => ({
        ...request,
        headers: { ...request.headers, [header]: randomUUID() },
      }),
    },
  ];
  const options = { url, connections, method: 'POST', headers, body, requests };
  await autocannon({ ...options, duration: 2 }); // warm-up
  const before = await cpuNow(processes);
  const result = await autocannon({ ...options, duration: seconds });
  const after = await cpuNow(processes);
  const answered = Math.max(1, result.requests.total ?? 0);
  // PostgreSQL's processes summed, each one's time since the first reading (or since it started)
  const cpu: Record<string, number> = {};
  for (const [name, ms] of Object.entries(after)) {
    const key = name.startsWith('postgres ') ? 'postgres' : name;
    cpu[key] = (cpu[key] ?? 0) + (ms - (before[name] ?? 0)) / answered;
  }
  return { ...result, cpu };
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpu: Record<string, number>;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const summarise = (results: Run[]): Figures => ({
  cpu: Object.fromEntries(
    Object.keys(results[0]?.cpu ?? {}).map((name) => [name, median(results.map((r) => r.cpu[name] ?? 0))]),
  ),
  rps: median(results.map((r) => r.requests.average)),
  p50: median(results.map((r) => r.latency.p50)),
  p99: median(results.map((r) => r.latency.p99)),
  errors: results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
});
const row = (name: string, f: Figures) =>
  `| ${name} | ${Math.round(f.rps)} | ${Math.round(f.p50)} | ${Math.round(f.p99)} | ${f.errors} |`;
/** CPU per request: where the machine's time goes, which on shared cores is steadier than throughput. */
const cpuRow = (name: string, f: Figures) =>
  `CPU ms per request, ${name}: ${Object.entries(f.cpu)
    .map(([process, ms]) => `${process} ${ms.toFixed(2)}`)
    .join(', ')}; total ${Object.values(f.cpu)
    .reduce((sum, ms) => sum + ms, 0)
    .toFixed(2)}`;

/** A core and its facade on the bench database. */
async function startService(corePort: number, facadePort: number, env: Record<string, string> = {}) {
  const { databaseUrl, facadeCredential } = database;
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
  return {
    core,
    facade,
    processes: { facade, core },
    url: `http://127.0.0.1:${facadePort}/services/2/transactions`,
  };
}

const header = `AUTH_CAPTURE sale, JSON, ${connections} connections, ${seconds} s per run, median of ${rounds} alternating rounds, durable PostgreSQL (embedded), ${new Date().toISOString()}`;

/** Keyed sales with an instant acquirer and with a 250 ms one, alternating; then each process's memory. */
async function latencyBench(authorization: string): Promise<string[]> {
  const instant = await startService(ports.core, ports.facade);
  const latent = await startService(await freePort(), await freePort(), {
    SANDBOX_ACQUIRER_LATENCY_MS: String(acquirerLatencyMs),
  });
  const runs = { instant: [] as Run[], latent: [] as Run[] };
  for (let round = 0; round < rounds; round++) {
    runs.instant.push(await load(instant.url, instant.processes, authorization, true));
    runs.latent.push(await load(latent.url, latent.processes, authorization, true));
  }
  const [fast, slow] = [summarise(runs.instant), summarise(runs.latent)];
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

try {
  const { databaseUrl, merchant } = database;
  const merchantId = merchant.id;
  const authorization = `Basic ${Buffer.from(`${merchant.username}:${merchant.password}`).toString('base64')}`;
  if (latencyMode) {
    process.stdout.write([header, ...(await latencyBench(authorization)), ''].join('\n'));
  } else {
    const bareServer = await start('test/bench/bare-server.ts', [
      databaseUrl,
      String(ports.bare),
      String(merchantId),
    ]);
    const service = await startService(ports.core, ports.facade);
    const runs = { bare: [] as Run[], full: [] as Run[], keyed: [] as Run[] };
    for (let round = 0; round < rounds; round++) {
      runs.bare.push(await load(`http://127.0.0.1:${ports.bare}/sale`, { bare: bareServer }));
      runs.full.push(await load(service.url, service.processes, authorization));
      runs.keyed.push(await load(service.url, service.processes, authorization, true));
    }
    const [bare, full, keyed] = [summarise(runs.bare), summarise(runs.full), summarise(runs.keyed)];
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
        `RSS after the runs, MB: core ${memory[0]?.toFixed(0)}, facade ${memory[1]?.toFixed(0)}`,
        '',
      ].join('\n'),
    );
  }
} finally {
  await stop();
  await database.stop();
}
