import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSandboxProcessor } from '@paywire/core';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type PostgresServer, startEmbeddedPostgres } from '../../infra/postgres.ts';
import { saleBody } from '../support/http.ts';
import { freePort } from '../support/ports.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/**
 * PostgreSQL killed (SIGKILL, as a crashed primary) under keyed card sales, then started again on the same
 * data: while it is gone every answer is 503 with Retry-After or 409 for a key still being resolved, never a
 * 500; every key ends with exactly one payment; and once recovery has resolved what the crash left, the
 * sandbox processor's standing authorizations are Paywire's transactions, one to one.
 */
const keys = 40;
const clients = 6;
const sandbox = createSandboxProcessor({ latencyMs: 50 });

let dataRoot: string;
let port: number;
let postgres: PostgresServer;
let stack: Stack;

const start = () => startEmbeddedPostgres({ dataDir: path.join(dataRoot, 'data'), port, durable: true });

beforeAll(async () => {
  dataRoot = mkdtempSync(path.join(tmpdir(), 'paywire-restart-pg-'));
  port = await freePort();
  postgres = await start();
  stack = await startStack({ postgresAdminUrl: postgres.adminUrl, sandbox, paymentRecoveryAfterSeconds: 2 });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  // Stopping the server terminates what is still connected (57P01): wait for the stack's pools (pg-boss's ends
  // after core has closed) to be gone first, so no client of this process hears it.
  const admin = new pg.Client({ connectionString: postgres.adminUrl });
  await admin.connect();
  await waitFor('the stack to disconnect', async () => {
    const { rows } = await admin.query<{ count: number }>(
      'select count(*)::int as count from pg_stat_activity where datname = $1',
      [new URL(stack.databaseUrl).pathname.slice(1)],
    );
    return rows[0]?.count === 0;
  });
  await admin.end();
  await postgres?.stop();
  rmSync(dataRoot, { recursive: true, force: true });
});

/** The postmaster's pid, from the lock file PostgreSQL keeps in its data directory. */
function postmasterPid(): number {
  const dataDir = path.join(dataRoot, 'data');
  return Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Starts PostgreSQL again once the killed one's backends have noticed and gone (bounded). */
async function restart(): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      postgres = await start();
      return;
    } catch (error) {
      if (attempt >= 40) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

it('a PostgreSQL crash under keyed sales: 503 with Retry-After meanwhile, never 500, each key paid once', {
  timeout: 240_000,
}, async () => {
  const statuses = new Map<number, number>();
  const retryAfterMissing: number[] = [];
  const paid = new Map<string, Set<string>>();
  let done = 0;
  const sell = async (key: string) => {
    // Bounded: a key is retried until it is answered for good, 2,000 times at most.
    for (let attempt = 0; attempt < 2000; attempt++) {
      let response: Response;
      try {
        response = await fetch(`${stack.baseUrl}/transactions`, {
          method: 'POST',
          headers: {
            authorization: stack.merchant.authorization,
            'content-type': 'application/json',
            'idempotency-key': key,
          },
          body: JSON.stringify(saleBody({ amount: 7 })),
        });
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      const body = (await response.json()) as { transactionId?: string };
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status === 503 && !response.headers.get('retry-after')) retryAfterMissing.push(attempt);
      if (response.status === 200) {
        paid.set(key, (paid.get(key) ?? new Set()).add(String(body.transactionId)));
        done++;
        return;
      }
      if (response.status !== 503 && response.status !== 409) return; // an answer for good: counted above
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const queue = Array.from({ length: keys }, () => randomUUID());
  const load = Promise.all(
    Array.from({ length: clients }, async () => {
      for (let key = queue.shift(); key; key = queue.shift()) await sell(key);
    }),
  );

  await waitFor('sales under way', () => done >= 8, 60_000);
  process.kill(postmasterPid(), 'SIGKILL');
  await waitFor('the outage answered as 503', () => (statuses.get(503) ?? 0) > 0, 60_000);
  await restart();
  await load;

  expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([200, 503]));
  expect([...statuses.keys()].filter((status) => ![200, 409, 503].includes(status))).toEqual([]);
  expect(retryAfterMissing).toEqual([]);
  expect(paid.size).toBe(keys);
  for (const answers of paid.values()) expect(answers.size).toBe(1);

  const transactions = await stack.db.query<{ processor_reference: string }>(
    `select coalesce(processor_reference, processing->>'networkTransactionId') as processor_reference
       from card_transaction where merchant_id = $1`,
    [stack.merchant.id],
  );
  expect(transactions.rows).toHaveLength(keys);
  // What the crash left at the processor is resolved by recovery: then its book and ours agree exactly.
  await waitFor(
    'recovery to resolve every attempt the crash left',
    async () => {
      const { rows } = await stack.db.query(
        `select 1 from payment_attempt where merchant_id = $1 and state in ('PENDING', 'VOIDING')`,
        [stack.merchant.id],
      );
      return rows.length === 0;
    },
    120_000,
  );
  const standing = [...sandbox.book.values()].flatMap((entry) =>
    entry.answer.approved && !entry.reversed ? [entry.answer.processorReference] : [],
  );
  expect(standing.sort()).toEqual(transactions.rows.map((row) => row.processor_reference).sort());
});
