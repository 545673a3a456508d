import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import pg, { type PoolClient } from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../apps/core/src/database.ts';
import { poolOf } from '../../apps/core/src/db/orm.ts';
import { executePrepared, sendWithNext } from '../../apps/core/src/db/wire.ts';
import { newDatabase } from '../support/stack.ts';

/**
 * The wire rules on a real PostgreSQL, through a pool of one connection: every test reuses the connection
 * the test before it left, so a statement left pending or a transaction left open would show.
 */
let orm: MikroORM;
let databaseUrl: string;
/**
 * Round trips of the pool's connection since the test began: bursts of socket writes, each ended by an answer
 * read. Statements written one after another without waiting for an answer count once.
 */
let roundTrips = 0;

beforeAll(async () => {
  databaseUrl = await newDatabase('wire');
  orm = await openDatabase(databaseUrl, 1);
  poolOf(orm).on('connect', (client: PoolClient) => {
    const socket = client.connection.stream as unknown as Record<
      '_write' | '_writev',
      (...a: unknown[]) => void
    > &
      NodeJS.ReadableStream;
    let answered = true;
    socket.on('data', () => {
      answered = true;
    });
    for (const method of ['_write', '_writev'] as const) {
      const original = socket[method].bind(socket);
      socket[method] = (...args) => {
        if (answered) roundTrips++;
        answered = false;
        original(...args);
      };
    }
  });
  await orm.em.fork().execute('create table wire_probe (id integer primary key)');
});
afterAll(() => orm.close());
beforeEach(async () => {
  await orm.em.fork().execute('truncate wire_probe');
  roundTrips = 0;
});

const probeIds = async () =>
  (await executePrepared<{ id: number }>(orm.em.fork(), 'select id from wire_probe order by id', [])).map(
    (row) => row.id,
  );
const insertProbe = (em: EntityManager, id: number) =>
  sendWithNext(em, 'insert into wire_probe (id) values ($1)', [id]);

describe('statements travelling with the next one', () => {
  it('sends begin, the transaction first statement, a queued insert and the commit in two round trips', async () => {
    await orm.em.fork().transactional(async (em) => {
      await executePrepared(em, 'select 1', []);
      await insertProbe(em, 1);
    });
    expect(roundTrips).toBe(2);
    expect(await probeIds()).toEqual([1]);
  });

  it('a failed queued statement fails the commit it travels with, and nothing of the transaction stays', async () => {
    const transaction = orm.em.fork().transactional(async (em) => {
      await insertProbe(em, 1);
      await insertProbe(em, 2);
      await insertProbe(em, 1); // duplicate key: the commit that carries it rolls back
    });
    await expect(transaction).rejects.toMatchObject({ cause: { code: '23505' } });
    expect(await probeIds()).toEqual([]);
  });

  it("a failed queued statement fails the statement it travels with as its own failure, not the carrier's", async () => {
    const transaction = orm.em.fork().transactional(async (em) => {
      await insertProbe(em, 3);
      await insertProbe(em, 3);
      await executePrepared(em, 'select count(*) from wire_probe', []);
    });
    await expect(transaction).rejects.toThrow('a statement sent with the next one failed');
    await expect(transaction).rejects.toMatchObject({ cause: { code: '23505', table: 'wire_probe' } });
    expect(await probeIds()).toEqual([]);
  });

  it('a failed queued statement with a meaning fails its carrier with what its caller said it means', async () => {
    class Taken extends Error {}
    const transaction = orm.em.fork().transactional(async (em) => {
      await insertProbe(em, 5);
      await sendWithNext(em, 'insert into wire_probe (id) values ($1)', [5], (error) =>
        (error as { code?: string }).code === '23505' ? new Taken('probe 5 is taken') : error,
      );
      await insertProbe(em, 6); // fails only because the one before did: the first failure is the one told
    });
    await expect(transaction).rejects.toBeInstanceOf(Taken);
    expect(await probeIds()).toEqual([]);
  });

  it('a commit after a failure someone caught rejects, since PostgreSQL rolled the transaction back', async () => {
    const transaction = orm.em.fork().transactional(async (em) => {
      await executePrepared(em, 'insert into wire_probe (id) values ($1)', [10]);
      await insertProbe(em, 10);
      await executePrepared(em, 'select 1', []).catch(() => 'handled');
    });
    await expect(transaction).rejects.toThrow('the transaction was rolled back');
    expect(await probeIds()).toEqual([]);
  });

  it('queued statements before a rollback are undone with the rest, failed or not; the call keeps its cause', async () => {
    const transaction = orm.em.fork().transactional(async (em) => {
      await insertProbe(em, 11);
      await insertProbe(em, 11);
      throw new Error('the call failed');
    });
    await expect(transaction).rejects.toThrow('the call failed');
    await orm.em.fork().transactional((em) => insertProbe(em, 12));
    expect(await probeIds()).toEqual([12]);
  });

  it('a transaction that sends nothing costs no round trip and leaves the connection ready', async () => {
    await orm.em.fork().transactional(async () => {});
    expect(roundTrips).toBe(0);
    await orm.em.fork().transactional(async (em) => insertProbe(em, 4));
    expect(await probeIds()).toEqual([4]);
  });

  it('a transaction that fails before its first statement sends nothing, and its connection autocommits next', async () => {
    const transaction = orm.em.fork().transactional(async () => {
      throw new Error('refused before any statement');
    });
    await expect(transaction).rejects.toThrow('refused before any statement');
    expect(roundTrips).toBe(0); // neither its begin nor a rollback left
    await executePrepared(orm.em.fork(), 'insert into wire_probe (id) values ($1)', [13]);
    // Seen from another connection: committed, not held in a transaction nobody will end.
    const outsider = new pg.Client({ connectionString: databaseUrl });
    await outsider.connect();
    const { rows } = await outsider.query<{ id: number }>('select id from wire_probe');
    await outsider.end();
    expect(rows).toEqual([{ id: 13 }]);
  });

  it('a connection the server dropped mid-transaction frees its pool slot', async () => {
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    const transaction = orm.em.fork().transactional(async (em) => {
      const [backend] = await executePrepared<{ pid: number }>(em, 'select pg_backend_pid() as pid', []);
      await admin.query('select pg_terminate_backend($1)', [backend?.pid]);
      await executePrepared(em, 'select 1', []);
    });
    await expect(transaction).rejects.toThrow();
    await admin.end();
    // The pool has one connection: a kept slot would make this wait for ever.
    await orm.em.fork().transactional((em) => insertProbe(em, 14));
    expect(await probeIds()).toEqual([14]);
  });

  it('refuses a queued statement outside a transaction, which nothing would ever send', async () => {
    await expect(insertProbe(orm.em.fork(), 5)).rejects.toThrow(
      /only travel with the next one in a transaction/,
    );
    expect(await probeIds()).toEqual([]);
  });

  it('parses a marked statement once per connection: later calls run its prepared statement', async () => {
    const text = 'select count(*)::int as n from wire_probe where id > $1';
    for (const floor of [0, 1, 2]) await executePrepared(orm.em.fork(), text, [floor]);
    const prepared = await executePrepared<{ statement: string }>(
      orm.em.fork(),
      "select statement from pg_prepared_statements where name like 'pw\\_%'",
      [],
    );
    expect(prepared.map((row) => row.statement)).toContain(`/* prepared */ ${text}`);
    expect(prepared.filter((row) => row.statement.endsWith(text))).toHaveLength(1);
  });
});
