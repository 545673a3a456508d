import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inSpan, SpanKind, tracingEnabled } from '@paywire/observability';
import { CompiledQuery } from 'kysely';
import type { Pool, PoolClient, QueryConfig, QueryResult } from 'pg';
import { observePool } from '../metrics.ts';

/** Marks the statements the hot path sends on every call. */
const preparedMarker = '/* prepared */ ';
/** Marks a statement whose answer nobody waits for: it travels with the next one. */
const riderMarker = '/* with next */ ';

type Send = (config: QueryConfig) => Promise<QueryResult>;

/** Prepared statements' names, by text: hashed once per text, not on every call. The texts are ours, few. */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `pw_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * How statements travel to PostgreSQL. A round trip costs more than most statements (a write and a wakeup
 * on both sides), so the pool's connections pipeline (pg's `pipeline` mode) and two rules cut round trips:
 * - a marked statement is a named prepared statement of its connection: parsed and planned once per
 *   connection, not on every call (MikroORM's own `execute` inlines parameters into the text);
 * - `begin`, and a statement sent with `sendWithNext`, are answered at once and written to the socket
 *   together with the connection's next statement, in one write. That next statement fails if one of them
 *   did (with an error of its own whose cause is theirs), except a rollback, which undoes them anyway.
 * A commit that PostgreSQL answers with a rollback fails too: nothing a caller swallowed commits silently.
 */
export const wireOptions = {
  pipeline: true,
  onPoolCreated: (pool: Pool) => {
    observePool(pool);
    const wires = new WeakMap<PoolClient, { reset(): void }>();
    pool.on('connect', (client) => {
      wires.set(client, carryRiders(client));
      if (tracingEnabled()) traceStatements(client);
    });
    // A transaction that sent nothing leaves nothing to undo: its pending begin must not reach the next user.
    pool.on('release', (_error, client) => wires.get(client)?.reset());
  },
};

/**
 * With tracing on: a client span per statement, named by its command, with its text (which carries no
 * values: they travel as parameters).
 */
function traceStatements(client: PoolClient): void {
  const query = client.query;
  client.query = ((text: unknown, ...rest: unknown[]) => {
    const call = () => (query as (...args: unknown[]) => Promise<unknown>).call(client, text, ...rest);
    if (typeof text !== 'string' || typeof rest.at(-1) === 'function') return call();
    const statement = text.replace(/^\/\*[^*]*\*\/ /g, '');
    const command = /^\w+/.exec(statement)?.[0]?.toLowerCase() ?? 'statement';
    const attributes = { 'db.system.name': 'postgresql', 'db.query.text': statement.slice(0, 2000) };
    return inSpan('paywire-core', `pg ${command}`, { kind: SpanKind.CLIENT, attributes }, call);
  }) as typeof client.query;
}

function carryRiders(client: PoolClient): { reset(): void } {
  const query = client.query;
  const send = query.bind(client) as Send;
  let riders: QueryConfig[] = [];
  let inTransaction = false;

  const flush = async (config: QueryConfig): Promise<QueryResult> => {
    const stream = client.connection.stream as NodeJS.WritableStream & { cork(): void; uncork(): void };
    const statements = [...riders, config];
    riders = [];
    stream.cork();
    const answers = statements.map((statement) => send(statement));
    stream.uncork();
    const settled = await Promise.allSettled(answers);
    const carried = settled.pop() as PromiseSettledResult<QueryResult>;
    const failed = settled.find((answer) => answer.status === 'rejected');
    // A rollback undoes a failed rider anyway; any other statement reports it, as a rider's failure, so that
    // no caller mistakes it for a failure of its own statement (a duplicate key of its own insert, say).
    if (failed && config.text !== 'rollback') {
      throw new Error('a statement sent with the next one failed', { cause: failed.reason });
    }
    if (carried.status === 'rejected') throw carried.reason;
    return carried.value;
  };

  /** A commit PostgreSQL turned into a rollback (an earlier statement failed and someone went on) fails. */
  const committed = (result: QueryResult): QueryResult => {
    if (result.command === 'ROLLBACK')
      throw new Error('the transaction was rolled back: a statement in it failed');
    return result;
  };

  /**
   * Kysely releases a connection only after its rollback succeeded; one that cannot roll back (the server
   * went away) would keep its pool slot for good. Released with the error, the pool drops it.
   */
  const releaseBroken = (error: Error): never => {
    client.release(error);
    throw error;
  };

  client.query = ((text: unknown, values?: unknown, ...rest: unknown[]) => {
    if (typeof text !== 'string' || (values !== undefined && !Array.isArray(values)) || rest.length > 0) {
      if (riders.length > 0) throw new Error('a callback or query object cannot follow a pending statement');
      return (query as (...args: unknown[]) => unknown).call(client, text, values, ...rest);
    }
    const config: QueryConfig = { text, values: values ?? [] };
    const rider = text.startsWith(riderMarker);
    if ((rider ? text.slice(riderMarker.length) : text).startsWith(preparedMarker)) {
      config.name = statementName(text);
    }
    if (text === 'begin' || rider) {
      if (text === 'begin') inTransaction = true;
      else if (!inTransaction)
        throw new Error('a statement can only travel with the next one in a transaction');
      riders.push(config);
      return Promise.resolve({ command: text, rowCount: null, oid: 0, rows: [], fields: [] });
    }
    if (text.startsWith('start transaction')) inTransaction = true;
    else if (text === 'commit' || text === 'rollback') inTransaction = false;
    const answer = riders.length > 0 ? flush(config) : send(config);
    if (text === 'commit') return answer.then(committed);
    if (text === 'rollback') return answer.catch(releaseBroken);
    return answer;
  }) as typeof client.query;

  return {
    reset: () => {
      riders = [];
      inTransaction = false;
    },
  };
}

/**
 * Runs a hot-path statement (parameters as $1, $2 ...) through the entity manager's connection, its
 * transaction's when it has one, as a prepared statement.
 */
export async function executePrepared<T>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
): Promise<T[]> {
  const result = await em.getKysely().executeQuery<T>(CompiledQuery.raw(preparedMarker + sql, [...params]));
  return result.rows;
}

/**
 * Runs a statement (parameters as $1, $2 ...) through the entity manager's connection, its transaction's
 * when it has one, unprepared: for statements off the hot path. Values travel as parameters, never in the
 * statement's text, where PostgreSQL's logs and pg_stat_activity would show them (MikroORM's `execute`
 * inlines them).
 */
export async function executeParameterized<T>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
): Promise<T[]> {
  const result = await em.getKysely().executeQuery<T>(CompiledQuery.raw(sql, [...params]));
  return result.rows;
}

/**
 * Queues a prepared statement of the entity manager's transaction without waiting for it: it is written
 * with the transaction's next statement (at the latest its commit), which fails if this one does.
 */
export async function sendWithNext(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
): Promise<void> {
  await em.getKysely().executeQuery(CompiledQuery.raw(riderMarker + preparedMarker + sql, [...params]));
}
