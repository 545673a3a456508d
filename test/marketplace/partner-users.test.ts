import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managePartners } from '../../infra/partners.ts';
import { type CallOptions, client, expectStatus, saleBody } from '../support/http.ts';
import { hookConfig } from '../support/ipn-receiver.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// Partner users (see docs/conformance.md, Partner users): POST /cp/user[?onbehalfofmid=] makes a console user
// of the caller's merchant, or of a merchant an operator linked the caller to as its partner; the user signs
// in to that merchant's console with its permissions. Real HTTP, JSON and XML, PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

let stack: Stack;
let api: ReturnType<typeof client>;
let origin: string;
/** The partner (the stack's merchant) and the merchant it will act for. */
let partner: TestMerchant;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  origin = new URL(stack.baseUrl).origin;
  partner = stack.merchant;
  merchant = await stack.newMerchant();
});

afterAll(async () => {
  await stack?.close();
});

const password = 'correct horse battery';
const newUser = (overrides: Record<string, unknown> = {}) => ({
  firstName: 'New',
  lastName: 'User',
  email: 'new.user@example.com',
  username: `finance${randomUUID().slice(0, 8)}`,
  password,
  ...overrides,
});

async function usersOf(merchantId: number): Promise<number> {
  const { rows } = await stack.db.query<{ n: number }>(
    'select count(*)::int as n from console_user where merchant_id = $1',
    [merchantId],
  );
  return rows[0]?.n ?? 0;
}

async function auditActions(merchantId: number): Promise<string[]> {
  const { rows } = await stack.db.query<{ action: string; object: string }>(
    'select action, object from audit_event where merchant_id = $1 order by seq',
    [merchantId],
  );
  return rows.map((row) => `${row.action} ${row.object}`);
}

function failure(reply: { body: { message: Array<Record<string, unknown>> } }) {
  const [message] = reply.body.message;
  return {
    errorName: message?.errorName,
    property: (message?.invalidProperty as { name?: string } | undefined)?.name,
  };
}

interface Signed {
  cookie: string;
  csrfToken: string;
}

async function consoleCall(method: string, path: string, session?: Signed, body?: unknown) {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (session) Object.assign(headers, { cookie: session.cookie, 'x-csrf-token': session.csrfToken });
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${origin}/console/api${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json');
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: json ? JSON.parse(text) : undefined,
  };
}

async function signIn(username: string): Promise<Signed & { merchantId: number }> {
  const answer = await consoleCall('POST', '/session', undefined, { username, password });
  expect(answer.status, answer.text).toBe(201);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { cookie, csrfToken: answer.body.csrfToken, merchantId: answer.body.merchantId };
}

describe('partner links', () => {
  it('refuses onbehalfofmid for a merchant the caller is not linked to, as if it did not exist', async () => {
    const reply = await api.post(`/cp/user?onbehalfofmid=${merchant.id}`, newUser());
    expect(reply.status, reply.text).toBe(404);
    expect(failure(reply)).toEqual({ errorName: 'RESOURCE_NOT_FOUND', property: 'onbehalfofmid' });
    expect(await usersOf(merchant.id)).toBe(0);
  });

  it('are set, listed and removed by the operator CLI, audited on the merchant', async () => {
    const { databaseUrl } = stack;
    expect(await managePartners(databaseUrl, 'link', partner.id, merchant.id)).toEqual([
      `partner ${partner.id} now acts for merchant ${merchant.id}`,
    ]);
    expect(await managePartners(databaseUrl, 'link', partner.id, merchant.id)).toEqual([
      `partner ${partner.id} already acts for merchant ${merchant.id}`,
    ]);
    const [listed] = await managePartners(databaseUrl, 'list', partner.id, undefined);
    expect(listed).toContain(`partner ${partner.id} (${partner.username}) acts for merchant ${merchant.id}`);
    expect(await auditActions(merchant.id)).toContain(`partner-link.add partner:${partner.id}`);
  });
});

describe('POST /cp/user', () => {
  it('creates a console user on behalf of a linked merchant: 200, the user without its password, Location', async () => {
    const body = newUser({ allowRefunds: 'true', allowLocator: true });
    const reply = await api.post(`/cp/user?onbehalfofmid=${merchant.id}`, body);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      username: body.username,
      firstName: 'New',
      lastName: 'User',
      email: 'new.user@example.com',
      admin: false,
      allowRefunds: true,
      allowLocator: true,
      allowReports: false,
    });
    expect(reply.body.userId).toBeGreaterThan(0);
    expect(reply.headers.get('location')).toBe(`${stack.baseUrl}/cp/user/${reply.body.userId}`);
    expect(reply.text).not.toContain(password);
    const { rows } = await stack.db.query(
      'select merchant_id, created_by, password_hash from console_user where id = $1',
      [reply.body.userId],
    );
    expect(rows[0]).toMatchObject({ merchant_id: merchant.id, created_by: partner.id });
    expect(rows[0]?.password_hash).not.toContain(password);
    expect(await auditActions(merchant.id)).toContain(
      `console-user.create console-user:${reply.body.userId}`,
    );
    expect(stack.logs.join('\n')).not.toContain(password);
  });

  it('creates one of the caller itself from the XML document, in cp-user.xsd order', async () => {
    const username = `admin${randomUUID().slice(0, 8)}`;
    const reply = await api.post(
      '/cp/user',
      `<?xml version="1.0" encoding="UTF-8"?>
<cp-user-info xmlns="http://ws.plimus.com">
  <username>${username}</username>
  <password>${password}</password>
  <first-name>Ada</first-name>
  <last-name>Admin</last-name>
  <email>ada@example.com</email>
  <admin>true</admin>
</cp-user-info>`,
      { format: 'xml' },
    );
    expect(reply.status, reply.text).toBe(200);
    const order = [...reply.text.matchAll(/<([a-z-]+)>/g)].map((match) => match[1]).slice(0, 7);
    expect(order).toEqual([
      'user-id',
      'username',
      'first-name',
      'last-name',
      'email',
      'admin',
      'allow-account-maintenance',
    ]);
    expect(reply.text).toContain('<admin>true</admin>');
    expect(reply.text).not.toContain('<password>');
    const { rows } = await stack.db.query('select merchant_id from console_user where username = $1', [
      username,
    ]);
    expect(rows).toEqual([{ merchant_id: partner.id }]);
  });

  it('refuses bad input in the error shape, never echoing the password, storing nothing', async () => {
    const taken = newUser();
    expectStatus(await api.post('/cp/user', taken), 200);
    const before = await usersOf(partner.id);
    const cases: Array<[string, unknown, string, CallOptions?]> = [
      ['/cp/user', newUser({ email: undefined }), 'email'],
      ['/cp/user', newUser({ password: 'too-short' }), 'password'],
      ['/cp/user', newUser({ username: 'has space' }), 'username'],
      ['/cp/user', newUser({ admin: 'perhaps' }), 'admin'],
      ['/cp/user', newUser({ username: taken.username }), 'username'],
      ['/cp/user', newUser({ username: merchant.username }), 'username'],
      ['/cp/user?onbehalfofmid=abc', newUser(), 'onBehalfOfMid'],
    ];
    for (const [path, body, property, options] of cases) {
      const reply = await api.post(path, body, options);
      expect(reply.status, reply.text).toBe(400);
      expect(failure(reply)).toEqual({ errorName: 'VALIDATION_GENERAL_FAILURE', property });
      expect(reply.text).not.toContain('too-short');
    }
    const xmlReply = await api.post(
      '/cp/user',
      '<cp-user-info xmlns="http://ws.plimus.com"><username>x</username></cp-user-info>',
      { format: 'xml' },
    );
    expect(xmlReply.status, xmlReply.text).toBe(400);
    expect(xmlReply.text).toContain('<error-name>VALIDATION_GENERAL_FAILURE</error-name>');
    expect(await usersOf(partner.id)).toBe(before);
  });
});

describe("a console user signs in to its merchant's console, bounded by its permissions", () => {
  it('acts for the merchant it was made for, as far as its permissions go', async () => {
    const refunder = newUser({ allowRefunds: true });
    expectStatus(await api.post(`/cp/user?onbehalfofmid=${merchant.id}`, refunder), 200);
    const session = await signIn(refunder.username);
    expect(session.merchantId).toBe(merchant.id);
    const me = await consoleCall('GET', '/session', session);
    expect(me.body).toMatchObject({ merchantId: merchant.id, username: refunder.username });
    expect(me.body.permissions).toMatchObject({ allowRefunds: true, allowLocator: false, admin: false });

    // A sale of the merchant's, which the user may read and refund but not search for or capture.
    const sale = expectStatus(
      await api.post('/transactions', saleBody({ cardTransactionType: 'AUTH_ONLY' }), { merchant }),
      200,
    );
    const id = sale.body.transactionId;
    expect((await consoleCall('GET', `/services/2/transactions/${id}`, session)).status).toBe(200);
    const search = await consoleCall('GET', '/transactions', session);
    expect(search.status, search.text).toBe(403);
    expect(search.body.message[0]).toMatchObject({ errorName: 'FORBIDDEN', code: 10403 });
    const capture = await consoleCall('PUT', '/services/2/transactions', session, {
      cardTransactionType: 'CAPTURE',
      transactionId: id,
    });
    expect(capture.status, capture.text).toBe(403);
    expect((await api.get(`/transactions/${id}`, { merchant })).body.cardTransactionType).toBe('AUTH_ONLY');
    const refund = await consoleCall('POST', `/services/2/transactions/refund/${id}`, session, {});
    expect(refund.status, refund.text).toBe(200);

    // A console user is no API credential.
    const basic = await api.get(`/transactions/${id}`, {
      merchant: {
        ...merchant,
        authorization: `Basic ${Buffer.from(`${refunder.username}:${password}`).toString('base64')}`,
      },
    });
    expect(basic.status).toBe(401);
  });

  it('an admin may do everything its merchant may, a user with no permission only read', async () => {
    const admin = newUser({ admin: true });
    const viewer = newUser();
    for (const user of [admin, viewer])
      expectStatus(await api.post(`/cp/user?onbehalfofmid=${merchant.id}`, user), 200);
    const adminSession = await signIn(admin.username);
    expect((await consoleCall('GET', '/transactions', adminSession)).status).toBe(200);
    const config = hookConfig('https://example.com/ipn', []);
    expect((await consoleCall('POST', '/services/2/notification-config', adminSession, config)).status).toBe(
      200,
    );
    const viewerSession = await signIn(viewer.username);
    expect((await consoleCall('GET', '/services/2/notification-config', viewerSession)).status).toBe(200);
    const change = await consoleCall('POST', '/services/2/notification-config', viewerSession, config);
    expect(change.status, change.text).toBe(403);
    const created = await consoleCall('POST', '/services/2/cp/user', viewerSession, newUser());
    expect(created.status, created.text).toBe(403);
  });

  it('an unlinked partner acts for the merchant no more', async () => {
    expect(await managePartners(stack.databaseUrl, 'unlink', partner.id, merchant.id)).toEqual([
      `partner ${partner.id} no longer acts for merchant ${merchant.id}`,
    ]);
    const before = await usersOf(merchant.id);
    const reply = await api.post(`/cp/user?onbehalfofmid=${merchant.id}`, newUser());
    expect(reply.status, reply.text).toBe(404);
    expect(await usersOf(merchant.id)).toBe(before);
    expect(await auditActions(merchant.id)).toContain(`partner-link.remove partner:${partner.id}`);
  });
});
