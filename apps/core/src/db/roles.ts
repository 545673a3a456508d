import pg from 'pg';

/**
 * Least privilege (docs/security.md, Database roles): migrations run as the owner of the schema; core runs as
 * an app role that owns nothing and holds only these grants, given again after every migration run so new
 * tables are covered. It reads and writes rows, and no more: it cannot create, alter or drop anything, change
 * the migrations' record, or update, delete or truncate an audit event (PostgreSQL refuses before the
 * append-only trigger is even asked).
 */
export function appRoleGrants(role: string): string[] {
  const app = pg.escapeIdentifier(role);
  return [
    'revoke create on schema public from public',
    `grant usage on schema public, pgboss to ${app}`,
    `grant select, insert, update, delete on all tables in schema public to ${app}`,
    `grant usage, select on all sequences in schema public to ${app}`,
    `revoke update, delete, truncate on audit_event from ${app}`,
    `revoke insert, update, delete, truncate on mikro_orm_migrations from ${app}`,
    // pg-boss's own tables: its queue, schedule and job rows (our queues are not partitioned, so no table is made).
    `grant select, insert, update, delete on all tables in schema pgboss to ${app}`,
    `grant usage, select on all sequences in schema pgboss to ${app}`,
    `grant execute on all functions in schema pgboss to ${app}`,
  ];
}

/** Gives the app role its grants, through the migration's own connection; the role must exist already. */
export async function grantAppRole(client: pg.Client, role: string): Promise<void> {
  const found = await client.query('select 1 from pg_roles where rolname = $1', [role]);
  if (found.rowCount === 0)
    throw new Error(`the app role ${role} does not exist: create it (a login role owning nothing) first`);
  for (const statement of appRoleGrants(role)) await client.query(statement);
}
