import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Core's readiness tells a busy pool from a lost database: every connection held by callers queued deep
 * enough that a probe of its own would wait past its 2 s bound, /readyz still answers 200 from the callers'
 * answers; the database refusing every connection, it answers 503 at once; allowed again, 200.
 */
let stack: Stack;
let admin: pg.Client;

beforeAll(async () => {
  stack = await startStack();
  stack.db.on('error', () => {}); // its idle connections are terminated below
  const adminUrl = new URL(stack.databaseUrl);
  adminUrl.pathname = '/postgres';
  admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
});
afterAll(async () => {
  await admin.query(`alter database "${databaseName()}" allow_connections true`).catch(() => {});
  await admin.end();
  await stack.close();
});

const databaseName = () => new URL(stack.databaseUrl).pathname.slice(1);
const readiness = async () => {
  const response = await fetch(new URL('/readyz', stack.core.url), { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: (await response.json()) as { status: string; reason?: string } };
};

it('answers ready while every connection is busy and a probe would queue for seconds', async () => {
  const { orm } = stack.core.services;
  // The stack's pool has 8 connections; 96 callers of 250 ms each queue a newcomer for about 3 s.
  const deadline = Date.now() + 4_000;
  let busy = true;
  const caller = async () => {
    while (busy && Date.now() < deadline) await orm.em.fork().execute('select pg_sleep(0.25)');
  };
  const callers = Array.from({ length: 96 }, caller);
  try {
    await waitFor('the pool queueing callers', async () => {
      const { rows } = await stack.db.query<{ sleeping: number }>(
        `select count(*)::int as sleeping from pg_stat_activity where query = 'select pg_sleep(0.25)'`,
      );
      return (rows[0]?.sleeping ?? 0) >= 8;
    });
    for (let look = 0; look < 3; look++)
      expect(await readiness()).toEqual({ status: 200, body: { status: 'ready' } });
  } finally {
    busy = false;
    await Promise.all(callers);
  }
});

it('answers not ready while the database refuses every connection, and ready once it accepts them again', async () => {
  const name = databaseName();
  await admin.query(`alter database "${name}" allow_connections false`);
  await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
  const refused = await stack.core.services.orm.em
    .fork()
    .execute('select 1')
    .then(
      () => 'answered',
      () => 'refused',
    );
  expect(refused).toBe('refused');
  expect(await readiness()).toEqual({
    status: 503,
    body: { status: 'not ready', reason: 'database unreachable' },
  });
  await admin.query(`alter database "${name}" allow_connections true`);
  await waitFor('ready again', async () => (await readiness()).status === 200, 30_000);
});
