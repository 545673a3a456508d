import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Pool, PoolClient } from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../apps/core/src/db/orm.ts';
import { executePrepared, sendWithNext } from '../apps/core/src/db/wire.ts';
import { newDatabase } from './support/stack.ts';

/**
 * The wire rules on a real PostgreSQL, through a pool of one connection: every test reuses the connection
 * the test before it left, so a statement left pending or a transaction left open would show.
 */
let orm: MikroORM;
/** Socket writes of the pool's connection since the test began. */
let writes = 0;

beforeAll(async () => {
  orm = await openDatabase(await newDatabase('wire'), 1);
  const pool = (await orm.em.getConnection().getNativeClient()) as Pool;
  pool.on('connect', (client: PoolClient) => {
    const socket = client.connection.stream as unknown as Record<
      '_write' | '_writev',
      (...a: unknown[]) => void
    >;
    for (const method of ['_write', '_writev'] as const) {
      const original = socket[method].bind(socket);
      socket[method] = (...args) => {
        writes++;
        original(...args);
      };
    }
  });
  await orm.em.fork().execute('create table wire_probe (id integer primary key)');
});
afterAll(() => orm.close());
beforeEach(async () => {
  await orm.em.fork().execute('truncate wire_probe');
  writes = 0;
});

const probeIds = async () =>
  (await executePrepared<{ id: number }>(orm.em.fork(), 'select id from wire_probe order by id', [])).map(
    (row) => row.id,
  );
const insertProbe = (em: EntityManager, id: number) =>
  sendWithNext(em, 'insert into wire_probe (id) values ($1)', [id]);

describe('statements travelling with the next one', () => {
  it('sends begin, the transaction first statement, a queued insert and the commit in two writes', async () => {
    await orm.em.fork().transactional(async (em) => {
      await executePrepared(em, 'select 1', []);
      await insertProbe(em, 1);
    });
    expect(writes).toBe(2);
    expect(await probeIds()).toEqual([1]);
  });

  it('a failed queued statement fails the commit it travels with, and nothing of the transaction stays', async () => {
    const transaction = orm.em.fork().transactional(async (em) => {
      await insertProbe(em, 1);
      await insertProbe(em, 2);
      await insertProbe(em, 1); // duplicate key: the commit that carries it rolls back
    });
    await expect(transaction).rejects.toMatchObject({ code: '23505' });
    expect(await probeIds()).toEqual([]);
  });

  it('a failed queued statement fails the statement it travels with, with its own error', async () => {
    const transaction = orm.em.fork().transactional(async (em) => {
      await insertProbe(em, 3);
      await insertProbe(em, 3);
      await executePrepared(em, 'select count(*) from wire_probe', []);
    });
    await expect(transaction).rejects.toMatchObject({ code: '23505', table: 'wire_probe' });
    expect(await probeIds()).toEqual([]);
  });

  it('a transaction that sends nothing leaves the connection ready for the next one', async () => {
    await orm.em.fork().transactional(async () => {});
    await orm.em.fork().transactional(async (em) => insertProbe(em, 4));
    expect(await probeIds()).toEqual([4]);
  });

  it('refuses a queued statement outside a transaction, which nothing would ever send', async () => {
    await expect(insertProbe(orm.em.fork(), 5)).rejects.toThrow(
      /only travel with the next one in a transaction/,
    );
    expect(await probeIds()).toEqual([]);
  });
});
