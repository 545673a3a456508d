import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import type { Pool, QueryConfig } from 'pg';

/** Marks the statements the hot path sends on every call. */
const marker = '/* prepared */ ';

/**
 * Makes every marked statement a named prepared statement of the connection it runs on: PostgreSQL parses
 * and plans it once per connection instead of on every call. MikroORM's own `execute` inlines parameters
 * into the text, so a statement would be parsed anew each time.
 */
export function prepareMarkedStatements(pool: Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (config: QueryConfig | string, ...rest: unknown[]) => unknown;
    client.query = ((text: QueryConfig | string, values?: unknown[], ...rest: unknown[]) =>
      typeof text === 'string' && text.startsWith(marker) && (values === undefined || Array.isArray(values))
        ? query(
            {
              name: `pw_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`,
              text,
              values: values ?? [],
            },
            ...rest,
          )
        : query(text, values, ...rest)) as typeof client.query;
  });
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
  const result = await em.getKysely().executeQuery<T>(CompiledQuery.raw(marker + sql, [...params]));
  return result.rows;
}
