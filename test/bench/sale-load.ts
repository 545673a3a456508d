import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import autocannon, { type Result } from 'autocannon';
import { saleBody } from '../support/http.ts';
import { postgresCpuMs } from './processes.ts';

/**
 * Sales under autocannon, with the CPU time each process spent per answered request: the load machinery of
 * the sale benchmark (sale.bench.ts), shared by the benchmarks that measure a sale's cost (keys.bench.ts).
 */

/**
 * A run's figures, the CPU time each process spent per request it answered (ms), the share of one core each
 * kept busy (CPU time over the run's time), and its answers by status.
 */
export type Run = Result & {
  cpu: Record<string, number>;
  busy: Record<string, number>;
  statuses: Record<string, number>;
};

export interface LoadOptions {
  authorization?: string;
  /** A fresh Idempotency-Key per request (else an ignored header). */
  keyed?: boolean;
  /** The sale's body; saleBody() unless given. */
  sale?: Record<string, unknown>;
  /** Each request's body built afresh (instead of the sale's and a unique header). */
  bodyOf?: () => string;
  /**
   * Work done while the load runs (after its warm-up): the run stops when it settles, or after the run's
   * duration at the latest; a failure stops the run and is thrown.
   */
  during?: () => Promise<void>;
  /** The run's length in seconds (its upper bound with `during`); the loader's unless given. */
  seconds?: number;
}

export interface LoaderSettings {
  connections: number;
  /** Each run's length, after a 2 s warm-up. */
  seconds: number;
  /** How many times `alternate` runs each load. */
  rounds: number;
  /** The data directory of the PostgreSQL the service uses: its processes' CPU is counted as `postgres`. */
  dataDir: string;
  /** A child process's CPU time so far in ms (benchProcesses().cpuMs). */
  cpuMs: (child: ChildProcess) => Promise<number>;
}

/** Sales at one service's URL, measured; and loads taken in turn, as the benchmarks compare them. */
export function saleLoader({ connections, seconds, rounds, dataDir, cpuMs }: LoaderSettings) {
  /** What each process (the load generator, the ones given, each of PostgreSQL's) has used of the CPU, in ms. */
  async function cpuNow(processes: Record<string, ChildProcess>): Promise<Record<string, number>> {
    const { user, system } = process.cpuUsage();
    const named = await Promise.all(
      Object.entries(processes).map(async ([name, child]) => [name, await cpuMs(child)] as const),
    );
    const postgres = await postgresCpuMs(dataDir);
    return {
      'load generator': (user + system) / 1000,
      ...Object.fromEntries(named),
      ...Object.fromEntries([...postgres].map(([pid, ms]) => [`postgres ${pid}`, ms])),
    };
  }

  async function load(
    url: string,
    processes: Record<string, ChildProcess>,
    { authorization, keyed = false, sale = saleBody(), bodyOf, during, ...run }: LoadOptions = {},
  ): Promise<Run> {
    const duration = run.seconds ?? seconds;
    const body = JSON.stringify(sale);
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
        setupRequest: (request: { headers?: Record<string, string> }) =>
          bodyOf
            ? { ...request, body: bodyOf() }
            : { ...request, headers: { ...request.headers, [header]: randomUUID() } },
      },
    ];
    const options = { url, connections, method: 'POST', headers, body, requests };
    await autocannon({ ...options, duration: 2 }); // warm-up
    const before = await cpuNow(processes);
    const started = performance.now();
    const running = autocannon({ ...options, duration });
    const work = during?.().finally(() => running.stop());
    const [result] = await Promise.all([running, work]);
    const elapsedMs = performance.now() - started;
    const after = await cpuNow(processes);
    const answered = Math.max(1, result.requests.total ?? 0);
    // PostgreSQL's processes summed, each one's time since the first reading (or since it started)
    const cpu: Record<string, number> = {};
    const busy: Record<string, number> = {};
    for (const [name, ms] of Object.entries(after)) {
      const key = name.startsWith('postgres ') ? 'postgres' : name;
      cpu[key] = (cpu[key] ?? 0) + (ms - (before[name] ?? 0)) / answered;
      busy[key] = (busy[key] ?? 0) + (ms - (before[name] ?? 0)) / elapsedMs;
    }
    const counts = (result as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
    const statuses = Object.fromEntries(Object.entries(counts).map(([status, { count }]) => [status, count]));
    if (result.timeouts > 0) statuses.timeout = result.timeouts;
    return { ...result, cpu, busy, statuses };
  }

  /** Each load in turn, for `rounds` rounds (on shared cores one run swings too much); each load's runs. */
  async function alternate(loads: Array<() => Promise<Run>>): Promise<Run[][]> {
    const runs = loads.map(() => [] as Run[]);
    for (let round = 0; round < rounds; round++) {
      for (const [i, next] of loads.entries()) runs[i]?.push(await next());
    }
    return runs;
  }

  return { load, alternate };
}

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpu: Record<string, number>;
  busy: Record<string, number>;
  /** Every run's non-2xx answers by status, summed. */
  statuses: Record<string, number>;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const medians = (results: Run[], of: (run: Run) => Record<string, number>) =>
  Object.fromEntries(
    Object.keys(results[0] ? of(results[0]) : {}).map((name) => [
      name,
      median(results.map((r) => of(r)[name] ?? 0)),
    ]),
  );
/** A load's runs as their medians, and its errors (non-2xx answers and failures, timeouts included) summed. */
export const summarise = (results: Run[]): Figures => ({
  cpu: medians(results, (run) => run.cpu),
  busy: medians(results, (run) => run.busy),
  rps: median(results.map((r) => r.requests.average)),
  p50: median(results.map((r) => r.latency.p50)),
  p99: median(results.map((r) => r.latency.p99)),
  errors: results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
  statuses: results.reduce<Record<string, number>>((sum, r) => {
    for (const [status, count] of Object.entries(r.statuses))
      if (!status.startsWith('2')) sum[status] = (sum[status] ?? 0) + count;
    return sum;
  }, {}),
});
export const row = (name: string, f: Figures) =>
  `| ${name} | ${Math.round(f.rps)} | ${Math.round(f.p50)} | ${Math.round(f.p99)} | ${f.errors} |`;
/** CPU per request: where the machine's time goes, which on shared cores is steadier than throughput. */
export const cpuRow = (name: string, f: Figures) =>
  `CPU ms per request, ${name}: ${Object.entries(f.cpu)
    .map(([process, ms]) => `${process} ${ms.toFixed(2)}`)
    .join(', ')}; total ${Object.values(f.cpu)
    .reduce((sum, ms) => sum + ms, 0)
    .toFixed(2)}`;

/** CPU per sale of Paywire itself: facade, core and PostgreSQL (not the load generator, not the fake acquirer). */
export const paywireCpu = (f: Figures) =>
  (f.cpu.facade ?? 0) + (f.cpu.core ?? 0) + (f.cpu.paywire ?? 0) + (f.cpu.postgres ?? 0);
export const statusList = (f: Figures) =>
  Object.entries(f.statuses)
    .map(([status, count]) => `${status} x${count}`)
    .join(', ') || 'none';

/** How much of one core each process kept busy during the run, in %: meaningful even when few sales were answered. */
export const busyRow = (name: string, f: Figures) =>
  `% of one core busy, ${name}: ${Object.entries(f.busy)
    .map(([process, share]) => `${process} ${(share * 100).toFixed(0)}`)
    .join(', ')}`;
