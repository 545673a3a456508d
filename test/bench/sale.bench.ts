import { randomBytes, randomUUID } from 'node:crypto';
import autocannon, { type Result } from 'autocannon';
import { saleBody } from '../support/http.ts';
import { startBenchDatabase } from './bench-database.ts';
import { benchProcesses } from './processes.ts';

/**
 * AUTH_CAPTURE sales, JSON, 32 connections, 10 s: the full service (facade and core as two processes,
 * as npm start runs them) beside a bare Koa + pg endpoint doing the same inserts on the same database.
 * Usage: npm run bench
 */
const connections = 32;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
// One run swings by 20% on a shared 2-core machine: the three loads alternate, and the means are reported.
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const ports = { bare: 18090, core: 18081, facade: 18080 };

const database = await startBenchDatabase('sale-bench');
const { start, stop } = benchProcesses();

async function load(url: string, authorization?: string, keyed = false): Promise<Result> {
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
  return autocannon({ ...options, duration: seconds });
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const summarise = (results: Result[]): Figures => ({
  rps: mean(results.map((r) => r.requests.average)),
  p50: mean(results.map((r) => r.latency.p50)),
  p99: mean(results.map((r) => r.latency.p99)),
  errors: results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
});
const row = (name: string, f: Figures) =>
  `| ${name} | ${Math.round(f.rps)} | ${Math.round(f.p50)} | ${Math.round(f.p99)} | ${f.errors} |`;

try {
  const { databaseUrl, merchant, facadeCredential } = database;
  const merchantId = merchant.id;
  const authorization = `Basic ${Buffer.from(`${merchant.username}:${merchant.password}`).toString('base64')}`;

  await start('test/bench/bare-server.ts', [databaseUrl, String(ports.bare), String(merchantId)]);
  await start('apps/core/src/main.ts', [], {
    DATABASE_URL: databaseUrl,
    CORE_PORT: String(ports.core),
    CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  await start('apps/facade/src/main.ts', [], {
    PORT: String(ports.facade),
    HOST: '127.0.0.1',
    CORE_URL: `http://127.0.0.1:${ports.core}/trpc`,
    CORE_CREDENTIAL: facadeCredential,
    LOG_REQUESTS: 'false',
  });

  const runs = { bare: [] as Result[], full: [] as Result[], keyed: [] as Result[] };
  const facadeUrl = `http://127.0.0.1:${ports.facade}/services/2/transactions`;
  for (let round = 0; round < rounds; round++) {
    runs.bare.push(await load(`http://127.0.0.1:${ports.bare}/sale`));
    runs.full.push(await load(facadeUrl, authorization));
    runs.keyed.push(await load(facadeUrl, authorization, true));
  }
  const [bare, full, keyed] = [summarise(runs.bare), summarise(runs.full), summarise(runs.keyed)];
  process.stdout.write(
    [
      `AUTH_CAPTURE sale, JSON, ${connections} connections, ${seconds} s per run, mean of ${rounds} alternating rounds, durable PostgreSQL (embedded), ${new Date().toISOString()}`,
      '| endpoint | requests/s | p50 ms | p99 ms | errors |',
      '|---|---|---|---|---|',
      row('bare Koa + pg (same inserts)', bare),
      row('Paywire full path (facade -> tRPC -> core)', full),
      row('Paywire full path, fresh Idempotency-Key per request', keyed),
      `full / bare throughput: ${((full.rps / bare.rps) * 100).toFixed(1)}%`,
      `idempotency overhead: ${((1 - keyed.rps / full.rps) * 100).toFixed(1)}% throughput`,
      '',
    ].join('\n'),
  );
} finally {
  await stop();
  await database.stop();
}
