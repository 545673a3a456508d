import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectStatus, saleBody } from '../support/http.ts';
import { hookConfig } from '../support/ipn-receiver.ts';
import { type Stack, startStack } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// Least privilege (issue 22): migrations run as the schema's owner; core runs as an app role holding only the
// grants db/roles.ts gives it. The whole service works as that role (sales, refunds and their audit events,
// shoppers, IPN settings, the workers' jobs), and PostgreSQL itself refuses the role an update, delete or
// truncate of the audit trail and any change to the schema. Real HTTP, real core, real PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

let stack: Stack;
let api: ReturnType<typeof client>;
let app: pg.Pool;

beforeAll(async () => {
  stack = await startStack({ appRole: true });
  api = client(stack);
  app = new pg.Pool({ connectionString: stack.coreOptions.databaseUrl, max: 1 });
});

afterAll(async () => {
  await app?.end();
  await stack?.close();
});

/** The SQLSTATE PostgreSQL refuses the app role's statement with (42501: insufficient privilege). */
async function refusal(sql: string): Promise<string | undefined> {
  try {
    await app.query(sql);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('core as the app role', () => {
  it('is not the owner: it connects as a role that is neither superuser nor owner of any table', async () => {
    const { rows } = await app.query<{ user: string; superuser: boolean; owned: number }>(
      `select current_user as user, r.rolsuper as superuser,
         (select count(*)::int from pg_tables where tableowner = current_user) as owned
       from pg_roles r where r.rolname = current_user`,
    );
    expect(rows[0]?.user).toMatch(/^paywire_app_/);
    expect(rows[0]).toMatchObject({ superuser: false, owned: 0 });
  });

  it('serves the API: a sale, its refund (an audit event), a vaulted shopper and its deletion, IPN settings', async () => {
    const sale = expectStatus(await api.post('/transactions', saleBody()), 200);
    expectStatus(await api.put(`/transactions/${sale.body.transactionId}/refund`), 204);
    const shopper = expectStatus(
      await api.post('/vaulted-shoppers', {
        firstName: 'Ada',
        lastName: 'Lovelace',
        paymentSources: { creditCardInfo: [{ creditCard: saleBody().creditCard }] },
      }),
      200,
    );
    expectStatus(await api.delete(`/vaulted-shoppers/${shopper.body.vaultedShopperId}`), 200);
    expectStatus(await api.post('/notification-config', hookConfig('https://example.com/ipn', [])), 200);
    const { rows } = await stack.db.query<{ action: string }>(
      'select action from audit_event where merchant_id = $1 order by seq',
      [stack.merchant.id],
    );
    expect(rows.map((row) => row.action)).toEqual(
      expect.arrayContaining(['refund', 'shopper.delete', 'ipn-config.replace']),
    );
  });

  it("runs the workers' jobs: pg-boss's queues and schedules were written as the app role", async () => {
    const { rows } = await stack.db.query<{ name: string }>(
      `select name from pgboss.schedule where name in ('idempotency-sweep', 'retention-sweep') order by name`,
    );
    expect(rows.map((row) => row.name)).toEqual(['idempotency-sweep', 'retention-sweep']);
    expect(stack.logs.join('\n')).not.toContain('permission denied');
  });
});

describe('what PostgreSQL refuses the app role', () => {
  it('an update, delete or truncate of the audit trail (privileges, before the append-only trigger)', async () => {
    expect(await refusal(`update audit_event set actor = 'someone else'`)).toBe('42501');
    expect(await refusal('delete from audit_event')).toBe('42501');
    expect(await refusal('truncate audit_event')).toBe('42501');
    // It may append (the service just did) and read.
    const { rows } = await app.query<{ n: number }>('select count(*)::int as n from audit_event');
    expect(rows[0]?.n).toBeGreaterThan(0);
  });

  it('any change to the schema or to the record of migrations', async () => {
    expect(await refusal('create table intruder (id int)')).toBe('42501');
    expect(await refusal('drop table stored_card')).toBe('42501');
    expect(await refusal('alter table audit_event disable trigger audit_event_append_only')).toBe('42501');
    expect(await refusal('delete from mikro_orm_migrations')).toBe('42501');
    expect(await refusal('create table pgboss.intruder (id int)')).toBe('42501');
  });
});
