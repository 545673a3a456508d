import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createPaywireClient, type PaywireClient } from '@paywire/client';
import { verifyAuditTrail } from '@paywire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, type Reply, saleBody } from '../support/http.ts';
import { hookConfig } from '../support/ipn-receiver.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// The audit trail (issue 22): every audited action leaves exactly one event in its merchant's hash chain,
// with its actor, client address and request id; the merchant reads its own over HTTP (JSON and XML);
// rows cannot be updated or deleted; `npm run audit -- verify` finds altered, removed and reordered rows.
// Real HTTP, real core, real PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

const run = promisify(execFile);
let stack: Stack;
let api: ReturnType<typeof client>;
let admin: PaywireClient;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  admin = createPaywireClient({
    url: stack.core.url,
    credential: await stack.issueCredential({ name: 'auditor-admin', scope: 'admin' }),
  });
});

afterAll(async () => {
  await stack?.close();
});

interface Row {
  seq: number;
  action: string;
  actor_kind: string;
  actor: string;
  client_address: string | null;
  request_id: string | null;
  object: string | null;
  outcome: string;
}

async function eventsOf(merchantId: number): Promise<Row[]> {
  const { rows } = await stack.db.query<Row>(
    `select seq::int, action, actor_kind, actor, client_address, request_id, object, outcome
     from audit_event where merchant_id = $1 order by seq`,
    [merchantId],
  );
  return rows;
}

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
const withAuthorization = (authorization: string): TestMerchant => ({
  id: 0,
  username: '',
  password: '',
  authorization,
});

const ipnConfig = hookConfig('https://example.com/ipn', []);

/** The cache of a facade keeps a login: a merchant's first request is its one login event. */
async function loginOnce(merchant: TestMerchant) {
  expectStatus(await api.get('/sandbox/clock', as(merchant)), 200);
}

async function newTransaction(merchant: TestMerchant, type: 'AUTH_ONLY' | 'AUTH_CAPTURE'): Promise<string> {
  const reply = expectStatus(
    await api.post('/transactions', saleBody({ cardTransactionType: type }), as(merchant)),
    200,
  );
  return String(reply.body.transactionId);
}

describe('every audited action leaves exactly one event', () => {
  it('records logins, IPN settings, captures, reversals, refunds, credentials and processor accounts, each once', async () => {
    const merchant = await stack.newMerchant();
    const ownClient = (requestId: string) => as(merchant, { headers: { 'x-request-id': requestId } });

    expectStatus(
      await api.get('/sandbox/clock', as(withAuthorization(basic(merchant.username, 'wrong-password-1')))),
      401,
    );
    await loginOnce(merchant);

    const replaced = expectStatus(
      await api.post('/notification-config', ipnConfig, ownClient('audit-ipn-replace')),
      200,
    );
    expect(replaced.headers.get('x-request-id')).toBe('audit-ipn-replace');
    expectStatus(await api.delete('/notification-config', as(merchant)), 204);

    const captured = await newTransaction(merchant, 'AUTH_ONLY');
    expectStatus(
      await api.put(
        '/transactions',
        { cardTransactionType: 'CAPTURE', transactionId: captured },
        as(merchant),
      ),
      200,
    );
    const reversed = await newTransaction(merchant, 'AUTH_ONLY');
    expectStatus(
      await api.put(
        '/transactions',
        { cardTransactionType: 'AUTH_REVERSAL', transactionId: reversed },
        as(merchant),
      ),
      200,
    );
    const refunded = await newTransaction(merchant, 'AUTH_CAPTURE');
    expectStatus(await api.put(`/transactions/${refunded}/refund`, undefined, as(merchant)), 204);

    // A credential bound to the merchant (issued by the operator CLI's code) reads and rotates its IPN secret.
    const bound = createPaywireClient({
      url: stack.core.url,
      credential: await stack.issueCredential({
        name: 'audit-bound',
        scope: 'one-merchant',
        merchantId: merchant.id,
      }),
    });
    await bound.ipn.secret.query();
    await bound.ipn.rotateSecret.mutate();

    // The admin credential manages the merchant's caller credentials and processor accounts.
    const issued = await admin.callers.issue.mutate({
      name: 'audit-svc',
      scope: 'read-only',
      merchantId: merchant.id,
    });
    await admin.callers.rotate.mutate({ name: 'audit-svc', graceSeconds: 0 });
    await admin.callers.revoke.mutate({ name: 'audit-svc' });
    const account = { merchantId: merchant.id, name: 'audit-extra' };
    await admin.processors.add.mutate({
      ...account,
      connector: 'sandbox',
      environment: 'test',
      merchantAccount: 'Audit',
      default: false,
    });
    await admin.processors.route.mutate({ merchantId: merchant.id, rules: [{ account: 'audit-extra' }] });
    await admin.processors.route.mutate({ merchantId: merchant.id, rules: [] });
    await admin.processors.disable.mutate(account);

    const events = await eventsOf(merchant.id);
    expect(events.map((event) => [event.action, event.outcome, event.actor_kind])).toEqual([
      ['password.set', 'success', 'operator'],
      ['login', 'failure', 'merchant'],
      ['login', 'success', 'merchant'],
      ['ipn-config.replace', 'success', 'merchant'],
      ['ipn-config.delete', 'success', 'merchant'],
      ['capture', 'success', 'merchant'],
      ['reversal', 'success', 'merchant'],
      ['refund', 'success', 'merchant'],
      ['caller-credential.issue', 'success', 'operator'],
      ['ipn-secret.read', 'success', 'caller'],
      ['ipn-secret.rotate', 'success', 'caller'],
      // an admin credential's calls are its operator's
      ['caller-credential.issue', 'success', 'operator'],
      ['caller-credential.rotate', 'success', 'operator'],
      ['caller-credential.revoke', 'success', 'operator'],
      ['processor-account.add', 'success', 'operator'],
      ['processor-routing.set', 'success', 'operator'],
      ['processor-routing.set', 'success', 'operator'],
      ['processor-account.disable', 'success', 'operator'],
    ]);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));

    const byAction = (action: string) => events.filter((event) => event.action === action);
    for (const login of byAction('login')) {
      expect(login).toMatchObject({ actor: String(merchant.id), client_address: '127.0.0.1' });
    }
    expect(byAction('ipn-config.replace')[0]).toMatchObject({
      actor: String(merchant.id),
      client_address: '127.0.0.1',
      request_id: 'audit-ipn-replace',
      object: `merchant:${merchant.id}`,
    });
    expect(byAction('capture')[0]?.object).toBe(`transaction:${captured}`);
    expect(byAction('reversal')[0]?.object).toBe(`transaction:${reversed}`);
    expect(byAction('refund')[0]?.object).toBe(`transaction:${refunded}`);
    expect(byAction('ipn-secret.rotate')[0]).toMatchObject({
      actor: expect.stringMatching(/^audit-bound \(pwc_\d+\)$/),
      client_address: null,
    });
    expect(byAction('caller-credential.issue')[1]).toMatchObject({
      actor: expect.stringMatching(/^auditor-admin \(pwc_\d+\)$/),
      object: `caller-credential:${issued.id}`,
    });
    expect(byAction('caller-credential.revoke')[0]?.object).toBe('caller:audit-svc');

    // The facade's request line names the merchant and its address too.
    const requestLine = await waitFor('the request line', () =>
      stack.logs.find((line) => line.includes('"message":"request"') && line.includes('audit-ipn-replace')),
    );
    expect(JSON.parse(requestLine)).toMatchObject({ merchantId: merchant.id, clientAddress: '127.0.0.1' });

    // Nothing audited leaks a secret: the event names the credential, never its secret.
    const everything = JSON.stringify(events);
    // The secret is what follows pwc_<id>_; being base64url it may hold '_' itself, even first.
    expect(everything).not.toContain(issued.credential.replace(/^pwc_\d+_/, ''));
    expect(everything).not.toContain(merchant.password);
  });

  it("records a SEPA debit's refund once, on either refund path", async () => {
    const merchant = await stack.newMerchant();
    const debitBody = {
      sepaDirectDebitTransaction: { iban: 'DE89370400440532013000' },
      payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
      amount: 20,
      currency: 'EUR',
      authorizedByShopper: true,
    };
    const created = expectStatus(await api.post('/alt-transactions', debitBody, as(merchant)), 200).body;
    const debitId = String(created.transactionId);
    expectStatus(await api.put('/sandbox/clock', { advanceBy: 'PT5M' }, as(merchant)), 200);
    await waitFor('the debit to be collected', async () => {
      const debit = expectStatus(await api.get(`/alt-transactions/${debitId}`, as(merchant)), 200).body;
      return debit.processingInfo.processingStatus === 'SUCCESS';
    });
    expectStatus(await api.put(`/transactions/${debitId}/refund?amount=5`, undefined, as(merchant)), 204);
    expectStatus(await api.post(`/transactions/refund/${debitId}`, { amount: '4.50' }, as(merchant)), 200);
    const refunds = (await eventsOf(merchant.id)).filter((event) => event.action === 'refund');
    expect(refunds.map((event) => [event.object, event.actor_kind])).toEqual([
      [`transaction:${debitId}`, 'merchant'],
      [`transaction:${debitId}`, 'merchant'],
    ]);
  });

  it('keeps a failed login of an unknown username on the chain of no merchant', async () => {
    const count = async () =>
      (
        await stack.db.query<{ n: number }>(
          "select count(*)::int as n from audit_event where merchant_id is null and action = 'login' and outcome = 'failure'",
        )
      ).rows[0]?.n;
    const before = await count();
    expectStatus(
      await api.get('/sandbox/clock', as(withAuthorization(basic('nobody_here', 'some-password-1')))),
      401,
    );
    expect(await count()).toBe((before ?? 0) + 1);
  });

  it('writes nothing when the change fails: a refund beyond the balance leaves no event', async () => {
    const merchant = await stack.newMerchant();
    const transactionId = await newTransaction(merchant, 'AUTH_CAPTURE');
    const before = (await eventsOf(merchant.id)).length;
    const refused = await api.put(
      `/transactions/${transactionId}/refund?amount=999`,
      undefined,
      as(merchant),
    );
    expect(refused.status).toBe(400);
    expect(await eventsOf(merchant.id)).toHaveLength(before);
  });

  it('chains concurrent writers of one merchant without a gap or a fork', async () => {
    const merchant = await stack.newMerchant();
    const bound = createPaywireClient({
      url: stack.core.url,
      credential: await stack.issueCredential({
        name: 'audit-concurrent',
        scope: 'one-merchant',
        merchantId: merchant.id,
      }),
    });
    await Promise.all(Array.from({ length: 30 }, () => bound.ipn.rotateSecret.mutate()));
    const events = await eventsOf(merchant.id);
    expect(events.filter((event) => event.action === 'ipn-secret.rotate')).toHaveLength(30);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect((await verifyAuditTrail(stack.core.services.orm.em.fork())).breaks).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('GET /audit-events', () => {
  it("pages through the merchant's own events, newest first, in JSON and XML", async () => {
    const merchant = await stack.newMerchant();
    await loginOnce(merchant);
    for (let index = 0; index < 3; index++) {
      expectStatus(await api.post('/notification-config', ipnConfig, as(merchant)), 200);
    }
    const stored = await eventsOf(merchant.id); // password.set, login, 3 x ipn-config.replace
    expect(stored).toHaveLength(5);

    const first = expectStatus(await api.get('/audit-events?pagesize=2', as(merchant)), 200);
    expect(first.body.lastPage).toBe(false);
    expect(first.body.auditEvents.map((event: { seq: number }) => event.seq)).toEqual([5, 4]);
    expect(first.body.auditEvents[0]).toMatchObject({
      action: 'ipn-config.replace',
      outcome: 'success',
      actorKind: 'merchant',
      actor: String(merchant.id),
      clientAddress: '127.0.0.1',
      object: `merchant:${merchant.id}`,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(first.body.auditEvents[0].requestId).toEqual(expect.any(String));
    expect(Number.isNaN(Date.parse(first.body.auditEvents[0].occurredAt))).toBe(false);

    const rest = expectStatus(await api.get('/audit-events?pagesize=10&after=4', as(merchant)), 200);
    expect(rest.body.lastPage).toBe(true);
    expect(rest.body.auditEvents.map((event: { action: string }) => event.action)).toEqual([
      'ipn-config.replace',
      'login',
      'password.set',
    ]);

    const xml = expectStatus(
      await api.get('/audit-events?pagesize=2', as(merchant, { accept: 'application/xml' })),
      200,
    );
    expect(xml.headers.get('content-type')).toContain('xml');
    expect(xml.text).toContain('<audit-log');
    expect(xml.text.match(/<audit-event>/g)).toHaveLength(2);
    expect(xml.text).toContain('<action>ipn-config.replace</action>');
    expect(xml.text).toContain('<last-page>false</last-page>');
  });

  it("shows a merchant none of another merchant's events", async () => {
    const [one, other] = [await stack.newMerchant(), await stack.newMerchant()];
    await loginOnce(one);
    await loginOnce(other);
    const page = expectStatus(await api.get('/audit-events?pagesize=500', as(other)), 200);
    const ownObjects = new Set([`merchant:${other.id}`]);
    for (const event of page.body.auditEvents) expect(ownObjects.has(event.object)).toBe(true);
    expect(JSON.stringify(page.body)).not.toContain(`merchant:${one.id}`);
  });

  it('answers a bad page size with 400 VALIDATION_GENERAL_FAILURE naming it, in JSON and XML', async () => {
    for (const accept of ['application/json', 'application/xml']) {
      const reply: Reply = await api.get('/audit-events?pagesize=0', { accept });
      expect(reply.status, reply.text).toBe(400);
      expect(reply.headers.get('content-type')).toContain(accept.split('/')[1]);
      expect(reply.body.message[0]).toMatchObject({ errorName: 'VALIDATION_GENERAL_FAILURE' });
      expect(reply.body.message[0].invalidProperty.name).toBe('pagesize');
    }
  });

  it('refuses a caller without credentials with 401', async () => {
    const reply = await api.get('/audit-events', { merchant: null });
    expect(reply.status).toBe(401);
    expect(reply.body.message[0]).toMatchObject({ errorName: 'UNAUTHORIZED' });
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('the chain', () => {
  it('refuses updates, deletes and truncation of events, and direct changes to the heads', async () => {
    const refusals = [
      "update audit_event set outcome = 'failure'",
      'delete from audit_event',
      'truncate audit_event',
      'update audit_chain set seq = seq + 1',
      'delete from audit_chain',
    ];
    for (const statement of refusals) {
      await expect(stack.db.query(statement)).rejects.toThrow(/append-only|move only with a new audit event/);
    }
  });

  /** What `verify` says after a change made by the table's owner with the guards off, and undone after. */
  async function verdictAfter(tamper: string[], undo: string[]) {
    const owner = await stack.db.connect();
    try {
      await owner.query('alter table audit_event disable trigger user');
      for (const statement of tamper) await owner.query(statement);
      try {
        return await verifyAuditTrail(stack.core.services.orm.em.fork());
      } finally {
        for (const statement of undo) await owner.query(statement);
        await owner.query('alter table audit_event enable trigger user');
      }
    } finally {
      owner.release();
    }
  }

  it('is intact after the tests above, and `npm run audit -- verify` says so', async () => {
    expect((await verifyAuditTrail(stack.core.services.orm.em.fork())).breaks).toEqual([]);
    const { stdout } = await run(process.execPath, ['infra/audit.ts', 'verify'], {
      env: { ...process.env, DATABASE_URL: stack.databaseUrl },
    });
    expect(stdout).toMatch(/verified: \d+ chain\(s\) intact/);
  });

  it('finds an altered row, and the CLI exits 1 naming it', async () => {
    const merchant = await stack.newMerchant();
    await loginOnce(merchant);
    const where = `merchant_id = ${merchant.id} and seq = 2`;
    const owner = await stack.db.connect();
    try {
      await owner.query('alter table audit_event disable trigger user');
      await owner.query(`update audit_event set outcome = 'failure' where ${where}`);
      const verdict = await verifyAuditTrail(stack.core.services.orm.em.fork());
      expect(verdict.breaks).toEqual([{ chain: merchant.id, seq: 2, problem: 'altered or reordered' }]);
      const cli = await run(process.execPath, ['infra/audit.ts', 'verify'], {
        env: { ...process.env, DATABASE_URL: stack.databaseUrl },
      }).catch((error: { code: number; stdout: string }) => error);
      expect('code' in cli && cli.code).toBe(1);
      expect(cli.stdout).toContain(`BROKEN\tchain ${merchant.id}\tseq 2\taltered or reordered`);
      await owner.query(`update audit_event set outcome = 'success' where ${where}`);
    } finally {
      await owner.query('alter table audit_event enable trigger user');
      owner.release();
    }
    expect((await verifyAuditTrail(stack.core.services.orm.em.fork())).breaks).toEqual([]);
  });

  it('finds a removed row, a removed last row and two rows swapped', async () => {
    const merchant = await stack.newMerchant();
    await loginOnce(merchant);
    for (let index = 0; index < 2; index++) {
      expectStatus(await api.post('/notification-config', ipnConfig, as(merchant)), 200);
    }
    const chain = merchant.id;
    const row = (seq: number) => `merchant_id = ${chain} and seq = ${seq}`;
    const keep = (seq: number) =>
      `create temporary table kept_${seq} as select * from audit_event where ${row(seq)}`;
    const restore = (seq: number) => [
      `insert into audit_event select * from kept_${seq}`,
      `drop table kept_${seq}`,
    ];

    const removed = await verdictAfter([keep(2), `delete from audit_event where ${row(2)}`], restore(2));
    expect(removed.breaks).toEqual(
      expect.arrayContaining([{ chain, seq: 3, problem: 'rows missing before it' }]),
    );

    const removedLast = await verdictAfter([keep(4), `delete from audit_event where ${row(4)}`], restore(4));
    expect(removedLast.breaks).toEqual([{ chain, seq: 3, problem: 'last rows missing: the head is seq 4' }]);

    const swap = [
      `update audit_event set seq = -1 where ${row(2)}`,
      `update audit_event set seq = 2 where ${row(3)}`,
      `update audit_event set seq = 3 where ${row(-1)}`,
    ];
    const swapped = await verdictAfter(swap, swap);
    expect(swapped.breaks).toEqual(
      expect.arrayContaining([
        { chain, seq: 2, problem: 'altered or reordered' },
        { chain, seq: 3, problem: 'altered or reordered' },
      ]),
    );

    expect((await verifyAuditTrail(stack.core.services.orm.em.fork())).breaks).toEqual([]);
  });
});
