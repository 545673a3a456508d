import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import pg from 'pg';
import { migrateJobSchema } from '../jobs/boss.ts';
import { migrations } from './migrations/index.ts';
import { grantAppRole } from './roles.ts';
import { type WireOptions, wireDialect } from './wire.ts';

/** Each open database's pool (wire.ts), for what needs a connection of its own (tests). */
const pools = new WeakMap<MikroORM, pg.Pool>();

/**
 * The database through the pipelined pool, mapping the entities it is given (the composition root's list:
 * this module knows no capability). Core gives its waits (wire.ts); one-shot commands such as migrations
 * give none, since a migration's statement may rightly run long.
 */
export async function openOrm(
  entities: NonNullable<Options['entities']>,
  databaseUrl: string,
  poolSize: number,
  waits?: WireOptions,
): Promise<MikroORM> {
  const { dialect, pool } = wireDialect(databaseUrl, poolSize, waits);
  const orm = await MikroORM.init({
    clientUrl: databaseUrl,
    entities,
    debug: false,
    driverOptions: dialect,
    ensureDatabase: false,
    extensions: [Migrator],
    migrations: {
      migrationsList: migrations,
      snapshot: false,
      silent: true,
      transactional: true,
      allOrNothing: true,
    },
  });
  pools.set(orm, pool);
  return orm;
}

export function poolOf(orm: MikroORM): pg.Pool {
  const pool = pools.get(orm);
  if (!pool) throw new Error('not a database opened by openOrm');
  return pool;
}

/** An arbitrary constant: the advisory lock every migration run holds, so concurrent runs apply in turn. */
const migrationLock = 0x7061_7977; // "payw"

/**
 * Applies the committed migrations and pg-boss's schema, holding a session advisory lock on a connection of
 * its own: a second run started meanwhile waits, then finds nothing to do. With `appRole`, then gives core's
 * app role its grants (db/roles.ts). Returns the names applied now.
 */
export async function migrate(
  orm: MikroORM,
  databaseUrl: string,
  options: { appRole?: string | undefined } = {},
): Promise<string[]> {
  const lock = new pg.Client({ connectionString: databaseUrl, application_name: 'paywire-migrate' });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [migrationLock]);
    const applied = await orm.migrator.up();
    await migrateJobSchema(databaseUrl);
    if (options.appRole) await grantAppRole(lock, options.appRole);
    return applied.map((migration) => migration.name);
  } finally {
    await lock.end(); // ends the session, which releases the lock whatever happened
  }
}

/** True when every committed migration is applied (core is not ready before). */
export async function migrationsCurrent(orm: MikroORM): Promise<boolean> {
  return (await orm.migrator.getPending()).length === 0;
}
