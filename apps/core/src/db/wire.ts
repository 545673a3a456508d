import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { createPostgreSqlTypeParsers, type EntityManager } from '@mikro-orm/postgresql';
import { inSpan, SpanKind, tracingEnabled } from '@paywire/observability';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import pg from 'pg';
import { observePool } from '../metrics.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

/** Marks the statements the hot path sends on every call. */
const preparedMarker = '/* prepared */ ';
/** Marks a statement whose answer nobody waits for: it travels with the next one. */
const riderMarker = '/* with next */ ';

/** What a rider's failure means to its caller, by the statement that carries it (see sendWithNext). */
type FailureMeaning = (error: unknown) => unknown;
const failureMeanings = new WeakMap<CompiledQuery, FailureMeaning>();

/** A statement waiting for the next one, with what its failure means. */
interface Rider {
  config: pg.QueryConfig;
  meaning?: FailureMeaning | undefined;
}

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

/** Kept as PostgreSQL sends them, as MikroORM's own pool does (its entities' dates expect that). */
function typeParsers(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  const textArray = pg.types.getTypeParser(1009 as Parameters<typeof pg.types.getTypeParser>[0]); // text[]
  for (const [oid, parse] of Object.entries(createPostgreSqlTypeParsers((value) => textArray(value)))) {
    types.setTypeParser(Number(oid), parse as (value: string) => unknown);
  }
  return types;
}

const affectingCommands = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * When the database last answered a statement, and last could not be reached: readiness (health.ts) asks the
 * pool's own traffic before it queues a probe of its own behind a busy pool's callers.
 */
export class DatabaseAnswers {
  #answeredAt = 0;
  #lostAt = 0;

  answered(): void {
    this.#answeredAt = performance.now();
  }

  lost(): void {
    this.#lostAt = performance.now();
  }

  /** A statement was answered within the last `ms`, and no statement or connection failed for an outage since. */
  answeredWithin(ms: number): boolean {
    return this.#answeredAt > this.#lostAt && performance.now() - this.#answeredAt < ms;
  }
}

const answersOfPools = new WeakMap<pg.Pool, DatabaseAnswers>();

/** What a pool opened by wireDialect has heard from its database. */
export function answersOf(pool: pg.Pool): DatabaseAnswers {
  const answers = answersOfPools.get(pool);
  if (!answers) throw new Error('not a pool opened by wireDialect');
  return answers;
}

/**
 * One pooled connection as Kysely (and so MikroORM) sees it. A round trip costs more than most statements (a
 * write and a wakeup on both sides, on a machine whose cores PostgreSQL shares), so:
 * - a marked statement is a named prepared statement of its connection: parsed and planned once per
 *   connection, not on every call (MikroORM's own `execute` inlines parameters into the text);
 * - `begin`, and a statement sent with `sendWithNext`, are answered at once and sent with the connection's
 *   next statement, without waiting between them (pg's pipeline mode): one round trip. That next statement
 *   fails if one of them did (with an error of its own whose cause is theirs), except a rollback, which
 *   undoes them anyway.
 * A commit that PostgreSQL answers with a rollback fails too: nothing a caller swallowed commits silently.
 */
class WireConnection implements DatabaseConnection {
  readonly #client: pg.PoolClient;
  #riders: Rider[] = [];
  #inTransaction = false;
  #released = false;
  readonly #namedStatements: boolean;
  readonly #answers: DatabaseAnswers;

  constructor(client: pg.PoolClient, namedStatements: boolean, answers: DatabaseAnswers) {
    this.#client = client;
    this.#namedStatements = namedStatements;
    this.#answers = answers;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const text = query.sql;
    const rider = text.startsWith(riderMarker);
    const config: pg.QueryConfig = { text, values: [...query.parameters] };
    if (this.#namedStatements && (rider ? text.slice(riderMarker.length) : text).startsWith(preparedMarker))
      config.name = statementName(text);
    if (rider) {
      if (!this.#inTransaction)
        throw new Error('a statement can only travel with the next one in a transaction');
      this.#riders.push({ config, meaning: failureMeanings.get(query) });
      return { rows: [] };
    }
    const result = await this.#send(config);
    return {
      rows: result.rows as R[],
      ...(affectingCommands.has(result.command) ? { numAffectedRows: BigInt(result.rowCount ?? 0) } : {}),
    };
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on pipelined connections');
  }

  begin(settings: TransactionSettings): Promise<unknown> | undefined {
    this.#inTransaction = true;
    if (!settings.isolationLevel && !settings.accessMode) {
      this.#riders.push({ config: { text: 'begin' } }); // travels with the transaction's first statement
      return undefined;
    }
    const mode = [
      settings.isolationLevel && `isolation level ${settings.isolationLevel}`,
      settings.accessMode,
    ];
    return this.#send({ text: `start transaction ${mode.filter(Boolean).join(' ')}` });
  }

  async commit(): Promise<void> {
    this.#inTransaction = false;
    if (this.#sentNothing()) return;
    const result = await this.#send({ text: 'commit' });
    if (result.command === 'ROLLBACK')
      throw new Error('the transaction was rolled back: a statement in it failed');
  }

  async rollback(): Promise<void> {
    this.#inTransaction = false;
    if (this.#sentNothing()) return;
    try {
      await this.#send({ text: 'rollback' });
    } catch (error) {
      // Kysely releases a connection only after its rollback succeeded; one that cannot roll back (the server
      // went away) would keep its pool slot for good. Released with the error, the pool drops it.
      this.release(error as Error);
      throw error;
    }
  }

  release(error?: Error): void {
    if (this.#released) return;
    this.#released = true;
    this.#riders = []; // nothing pending reaches the connection's next user
    this.#inTransaction = false;
    this.#client.release(error);
  }

  /** A transaction that sent nothing has nothing to commit or undo: its pending begin is dropped, unsent. */
  #sentNothing(): boolean {
    if (this.#riders.length !== 1 || this.#riders[0]?.config.text !== 'begin') return false;
    this.#riders = [];
    return true;
  }

  async #send(config: pg.QueryConfig): Promise<pg.QueryResult> {
    if (this.#riders.length === 0) return this.#query(config);
    const riders = this.#riders;
    const statements = [...riders.map((rider) => rider.config), config];
    this.#riders = [];
    // Pipeline mode sends each statement as it is issued: none waits for the answer of the one before. The
    // socket is corked meanwhile, so that they leave in one write (a system call each costs more than most
    // statements' own work here).
    const { stream } = (this.#client as unknown as pg.Client).connection;
    stream.cork();
    let answers: Promise<pg.QueryResult>[];
    try {
      answers = statements.map((statement) => this.#query(statement));
    } finally {
      stream.uncork();
    }
    const settled = await Promise.allSettled(answers);
    const carried = settled.pop() as PromiseSettledResult<pg.QueryResult>;
    const failedAt = settled.findIndex((answer) => answer.status === 'rejected');
    // A rollback undoes a failed rider anyway; any other statement reports it, as the rider's failure (what
    // its caller said it means, or a failure of its own kind), so that no caller mistakes it for a failure of
    // its own statement (a duplicate key of its own insert, say). After the first failure in a transaction,
    // the rest fail only because it did.
    if (failedAt >= 0 && config.text !== 'rollback') {
      const { reason } = settled[failedAt] as PromiseRejectedResult;
      const meaning = riders[failedAt]?.meaning;
      if (meaning) throw meaning(reason);
      throw new Error('a statement sent with the next one failed', { cause: reason });
    }
    if (carried.status === 'rejected') throw carried.reason;
    return carried.value;
  }

  /** With tracing on: a client span per statement, named by its command, with its text (values are parameters). */
  #query(config: pg.QueryConfig): Promise<pg.QueryResult> {
    if (!tracingEnabled()) return this.#heard(this.#client.query(config));
    const statement = config.text.replace(/^\/\*[^*]*\*\/ /g, '');
    const command = /^\w+/.exec(statement)?.[0]?.toLowerCase() ?? 'statement';
    const attributes = { 'db.system.name': 'postgresql', 'db.query.text': statement.slice(0, 2000) };
    return inSpan('paywire-core', `pg ${command}`, { kind: SpanKind.CLIENT, attributes }, () =>
      this.#heard(this.#client.query(config)),
    );
  }

  /** Tells the pool's answers how a statement ended (a refusal is an answer too). */
  #heard(answer: Promise<pg.QueryResult>): Promise<pg.QueryResult> {
    return answer.then(
      (result) => {
        this.#answers.answered();
        return result;
      },
      (error: unknown) => {
        if (isDatabaseUnavailable(error)) this.#answers.lost();
        else this.#answers.answered();
        throw error;
      },
    );
  }
}

const wired = (connection: DatabaseConnection) => connection as WireConnection;
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Kysely's driver interface over a pg pool of pipelined connections. */
class WireDriver implements Driver {
  readonly pool: pg.Pool;
  readonly #outageWaitMs: number;
  readonly #namedStatements: boolean;
  readonly #answers: DatabaseAnswers;

  constructor(
    pool: pg.Pool,
    answers: DatabaseAnswers,
    { outageWaitMs = 0, namedStatements = true }: WireOptions,
  ) {
    this.pool = pool;
    this.#answers = answers;
    this.#outageWaitMs = outageWaitMs;
    this.#namedStatements = namedStatements;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WireConnection(await this.#connect(), this.#namedStatements, this.#answers);
  }

  /**
   * A connection, waiting through an outage up to `outageWaitMs`: a connection not had yet has sent nothing,
   * so trying again is safe, and a planned switchover (the primary shut down, the standby promoted, the
   * endpoint moved: a second or two) costs a call that much time instead of a 503.
   */
  async #connect(): Promise<pg.PoolClient> {
    const giveUpAt = Date.now() + this.#outageWaitMs;
    for (let pauseMs = 50; ; pauseMs = Math.min(pauseMs * 2, 500)) {
      try {
        return await this.pool.connect();
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        this.#answers.lost();
        if (Date.now() + pauseMs > giveUpAt) throw error;
        await delay(pauseMs);
      }
    }
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await wired(connection).begin(settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return wired(connection).commit();
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return wired(connection).rollback();
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoted(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoted(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoted(name)}`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    wired(connection).release();
  }

  async destroy(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}

/** How core uses its connections (docs/operations.md: Losing the database primary, PgBouncer). */
export interface WireOptions {
  /**
   * A statement unanswered this long gives its connection up (pg destroys a pipelined connection whose sent
   * statement timed out, and the pool drops it), and so does a connection or a pool slot not had in that
   * time: a primary cut off by the network, whose connections stay open and silent, costs calls that long
   * (503, the outcome unknown) instead of holding them and the pool until TCP gives up. None: no limit.
   */
  answerTimeoutMs?: number | undefined;
  /** How long a connection is tried for while the database cannot be reached (default 0: once). */
  outageWaitMs?: number | undefined;
  /**
   * Marked statements as named prepared statements, parsed once per connection (default). Off, they are
   * sent unnamed, parsed each time: for a PgBouncer in transaction mode that does not track prepared
   * statements (before 1.21, or without `max_prepared_statements`), where the next transaction may run on a
   * server connection that never prepared them.
   */
  namedStatements?: boolean | undefined;
}

/**
 * The Kysely dialect MikroORM runs on (its `driverOptions`): PostgreSQL's own query compiler, adapter and
 * introspector, over our driver, whose pool is returned for metrics and tests.
 */
export function wireDialect(
  databaseUrl: string,
  poolSize: number,
  options: WireOptions = {},
): { dialect: Dialect; pool: pg.Pool } {
  const { answerTimeoutMs } = options;
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    min: 0,
    max: poolSize,
    types: typeParsers(),
    pipeline: true,
    ...(answerTimeoutMs ? { query_timeout: answerTimeoutMs, connectionTimeoutMillis: answerTimeoutMs } : {}),
  });
  // A dropped connection is reported as an 'error' event, fatal without a listener; the statement in flight
  // rejects on its own and the pool discards the connection, so there is nothing more to do here.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  observePool(pool);
  const answers = new DatabaseAnswers();
  answersOfPools.set(pool, answers);
  const driver = new WireDriver(pool, answers, options);
  const dialect: Dialect = {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => driver,
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
  return { dialect, pool };
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
 * Queues a prepared statement of the entity manager's transaction without waiting for it: it is sent with
 * the transaction's next statement (at the latest its commit), which fails if this one does: with what
 * `meaning` makes of this one's error when given (a domain error its caller would have thrown), else with
 * an error whose cause is it.
 */
export async function sendWithNext(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
  meaning?: FailureMeaning,
): Promise<void> {
  const query = CompiledQuery.raw(riderMarker + preparedMarker + sql, [...params]);
  if (meaning) failureMeanings.set(query, meaning);
  await em.getKysely().executeQuery(query);
}
