import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, saleBody } from '../support/http.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';

// The merchant console's HTTP side (apps/facade/src/console/): its page under the hosted fields' CSP, its
// session (HttpOnly SameSite=Strict cookie, CSRF token, login limits, idle timeout, sign-out), its own reads
// and the public interface reached through it. The browser walk is console.browser.test.ts.

let stack: Stack;
let api: ReturnType<typeof client>;
let merchant: TestMerchant;
let origin: string;

interface Signed {
  cookie: string;
  csrfToken: string;
}

async function consoleCall(
  method: string,
  path: string,
  {
    session,
    csrfToken,
    body,
    accept,
  }: { session?: Signed; csrfToken?: string; body?: unknown; accept?: string } = {},
) {
  const headers: Record<string, string> = { accept: accept ?? 'application/json' };
  if (session) headers.cookie = session.cookie;
  const csrf = csrfToken ?? session?.csrfToken;
  if (csrf !== undefined) headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${origin}/console/api${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: type.includes('json') ? JSON.parse(text) : undefined,
  };
}

async function signIn(who: TestMerchant, password = who.password) {
  return consoleCall('POST', '/session', { body: { username: who.username, password } });
}

async function signedIn(who: TestMerchant): Promise<Signed> {
  const answer = expectStatus(await signIn(who), 201);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { cookie, csrfToken: answer.body.csrfToken };
}

function expectError(answer: { status: number; body: unknown }, status: number, errorName: string) {
  expect(answer.status).toBe(status);
  const message = (answer.body as { message: { errorName: string; code: number; description: string }[] })
    .message[0];
  expect(message?.errorName).toBe(errorName);
  expect(typeof message?.code).toBe('number');
  return message;
}

async function refundedMinor(transactionId: string): Promise<number> {
  const { rows } = await stack.db.query<{ refunded_minor: string }>(
    'select refunded_minor from card_transaction where id = $1',
    [transactionId],
  );
  return Number(rows[0]?.refunded_minor);
}

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  merchant = await stack.newMerchant();
  origin = new URL(stack.baseUrl).origin;
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

describe('the console page', () => {
  it('is served under /console with the hosted fields CSP, for any of its paths', async () => {
    for (const path of ['/console', '/console/transactions/123']) {
      const page = await fetch(`${origin}${path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const html = await page.text();
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
      expect(html).not.toMatch(/\sstyle=/);
      const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(`${origin}${script}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toContain('javascript');
      expect(asset.headers.get('cache-control')).toContain('immutable');
    }
    expect((await fetch(`${origin}/console/assets/missing.js`)).status).toBe(404);
  });
});

describe('sign-in', () => {
  it('opens a session: an HttpOnly, SameSite=Strict cookie for /console, a CSRF token, only a hash stored', async () => {
    const answer = expectStatus(await signIn(merchant), 201);
    const cookie = answer.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^paywire_console=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/path=\/console/i);
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/samesite=strict/i);
    expect(answer.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const token = /^paywire_console=([^;]+)/.exec(cookie)?.[1] ?? '';
    const { rows } = await stack.db.query<{ token_hash: Buffer }>(
      'select token_hash from console_session where merchant_id = $1',
      [merchant.id],
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((row) => row.token_hash.toString('utf8').includes(token))).toBe(false);

    const session = { cookie: cookie.split(';')[0] ?? '', csrfToken: answer.body.csrfToken };
    const who = expectStatus(await consoleCall('GET', '/session', { session }), 200);
    expect(who.body).toEqual({
      merchantId: merchant.id,
      username: merchant.username,
      permissions: null, // the merchant's own credentials: no console user's permissions bound it
      csrfToken: session.csrfToken,
    });
  });

  it('refuses wrong credentials with the error shape, no Basic challenge and no session', async () => {
    const other = await stack.newMerchant();
    const answer = await signIn(other, 'not the password at all');
    expectError(answer, 401, 'UNAUTHORIZED');
    expect(answer.headers.get('www-authenticate')).toBeNull();
    expect(answer.headers.get('set-cookie')).toBeNull();
    const { rows } = await stack.db.query('select 1 from console_session where merchant_id = $1', [other.id]);
    expect(rows).toEqual([]);
  });

  it('shares the login limits of HTTP Basic: failures of both at one address add up to a 429', async () => {
    const guessed = await stack.newMerchant();
    const wrongBasic = {
      ...guessed,
      authorization: `Basic ${Buffer.from(`${guessed.username}:wrong password`).toString('base64')}`,
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      expectError(await signIn(guessed, `wrong password ${attempt}`), 401, 'UNAUTHORIZED');
      expectStatus(await api.get('/sandbox/clock', as(wrongBasic)), 401);
    }
    // The sixth failure blocked the username at this address: even the right password waits (a second at first).
    const limited = await signIn(guessed);
    expectError(limited, 429, 'TOO_MANY_REQUESTS');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('set-cookie')).toBeNull();
  });

  it('answers a malformed sign-in body with a validation error', async () => {
    expectError(
      await consoleCall('POST', '/session', { body: { username: 5 } }),
      400,
      'VALIDATION_GENERAL_FAILURE',
    );
  });
});

describe('the session', () => {
  it('is required: no cookie, a made-up one, an ended one are 401 with the error shape, and nothing changes', async () => {
    const sale = expectStatus(await api.post('/transactions', saleBody(), as(merchant)), 200).body;
    const id = String(sale.transactionId);
    const madeUp = { cookie: `paywire_console=${'A'.repeat(43)}`, csrfToken: 'x' };
    for (const session of [undefined, madeUp]) {
      expectError(await consoleCall('GET', '/transactions', session ? { session } : {}), 401, 'UNAUTHORIZED');
      const refund = await consoleCall('POST', `/services/2/transactions/refund/${id}`, {
        ...(session ? { session } : {}),
        body: { amount: 1 },
      });
      expectError(refund, 401, 'UNAUTHORIZED');
      expect(refund.headers.get('www-authenticate')).toBeNull();
    }
    expect(await refundedMinor(id)).toBe(0);
  });

  it('refuses a change without the session CSRF token (403), and makes it with the token', async () => {
    const session = await signedIn(merchant);
    const sale = expectStatus(await api.post('/transactions', saleBody(), as(merchant)), 200).body;
    const id = String(sale.transactionId);
    for (const csrfToken of ['', 'A'.repeat(43), (await signedIn(merchant)).csrfToken]) {
      const refused = await consoleCall('POST', `/services/2/transactions/refund/${id}`, {
        session,
        csrfToken,
        body: { amount: 5 },
      });
      expect(expectError(refused, 403, 'FORBIDDEN')?.description).toContain('x-csrf-token');
    }
    expectError(await consoleCall('DELETE', '/session', { session, csrfToken: 'wrong' }), 403, 'FORBIDDEN');
    expect(await refundedMinor(id)).toBe(0);
    const refund = expectStatus(
      await consoleCall('POST', `/services/2/transactions/refund/${id}`, { session, body: { amount: 5 } }),
      200,
    );
    expect(refund.body).toMatchObject({ transactionId: id, amount: 5, currency: 'USD' });
    expect(await refundedMinor(id)).toBe(500);
  });

  it('reaches the public interface as the session merchant, in JSON and XML, and never another merchant', async () => {
    const session = await signedIn(merchant);
    const mine = expectStatus(await api.post('/transactions', saleBody(), as(merchant)), 200).body;
    const theirs = expectStatus(await api.post('/transactions', saleBody(), as(stack.merchant)), 200).body;
    const json = expectStatus(
      await consoleCall('GET', `/services/2/transactions/${mine.transactionId}`, { session }),
      200,
    );
    expect(json.body.creditCard.cardLastFourDigits).toBe('9299');
    expect(json.text).not.toContain('4263982640269299');
    const xml = await consoleCall('GET', `/services/2/transactions/${mine.transactionId}`, {
      session,
      accept: 'application/xml',
    });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<card-last-four-digits>9299</card-last-four-digits>');
    expectError(
      await consoleCall('GET', `/services/2/transactions/${theirs.transactionId}`, { session }),
      404,
      'TRANSACTION_NOT_FOUND',
    );
    expectError(await consoleCall('GET', '/nothing-here', { session }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('ends on sign-out, everywhere', async () => {
    const session = await signedIn(merchant);
    const answer = await consoleCall('DELETE', '/session', { session });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('set-cookie')).toMatch(/^paywire_console=;.*expires=Thu, 01 Jan 1970/i);
    expectError(await consoleCall('GET', '/session', { session }), 401, 'UNAUTHORIZED');
  });

  it('times out after 30 idle minutes, and each request restarts the idle time', async () => {
    const session = await signedIn(merchant);
    const idleFor = (minutes: number) =>
      stack.db.query(
        `update console_session set last_seen_at = now() - make_interval(mins => $2)
          where merchant_id = $1 and ended_at is null`,
        [merchant.id, minutes],
      );
    await idleFor(29);
    expectStatus(await consoleCall('GET', '/session', { session }), 200); // restarts it
    const { rows } = await stack.db.query<{ idle: boolean }>(
      `select bool_or(last_seen_at > now() - interval '1 minute') as idle from console_session where merchant_id = $1`,
      [merchant.id],
    );
    expect(rows[0]?.idle).toBe(true);
    await idleFor(31);
    expectError(await consoleCall('GET', '/session', { session }), 401, 'UNAUTHORIZED');
  });

  it('ends when the merchant password changes', async () => {
    const changed = await stack.newMerchant();
    const session = await signedIn(changed);
    await stack.db.query(
      'update merchant set credentials_generation = credentials_generation + 1 where id = $1',
      [changed.id],
    );
    expectError(await consoleCall('GET', '/session', { session }), 401, 'UNAUTHORIZED');
  });
});

describe('GET /console/api/transactions', () => {
  it('finds card transactions by id, merchantTransactionId, last four, amount, status and date', async () => {
    const searcher = await stack.newMerchant();
    const session = await signedIn(searcher);
    const sell = async (overrides: Record<string, unknown>) =>
      String(
        expectStatus(await api.post('/transactions', saleBody(overrides), as(searcher)), 200).body
          .transactionId,
      );
    const visa = await sell({ merchantTransactionId: 'order-1', amount: 10 });
    const mastercard = await sell({
      amount: 12.34,
      creditCard: {
        cardNumber: '5425233430109903',
        securityCode: '123',
        expirationMonth: '02',
        expirationYear: '2031',
      },
    });
    const auth = await sell({ cardTransactionType: 'AUTH_ONLY', amount: 7 });
    expectStatus(await api.post(`/transactions/refund/${visa}`, {}, as(searcher)), 200);
    const ids = async (query: string) => {
      const answer = expectStatus(await consoleCall('GET', `/transactions?${query}`, { session }), 200);
      return answer.body.transactions.map((row: { transactionId: number }) => String(row.transactionId));
    };
    expect(await ids('')).toEqual([auth, mastercard, visa]);
    expect(await ids(`transactionId=${mastercard}`)).toEqual([mastercard]);
    expect(await ids('merchantTransactionId=order-1')).toEqual([visa]);
    expect(await ids('lastFour=9903')).toEqual([mastercard]);
    expect(await ids('amount=12.34')).toEqual([mastercard]);
    expect(await ids('status=AUTHORIZED')).toEqual([auth]);
    expect(await ids('status=REFUNDED')).toEqual([visa]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await ids(`from=${today}&to=${today}`)).toHaveLength(3);
    expect(await ids('to=2000-01-01')).toEqual([]);
    const page = expectStatus(await consoleCall('GET', '/transactions?pagesize=2', { session }), 200).body;
    expect(page.nextAfter).toBe(Number(mastercard));
    expect(await ids(`pagesize=2&after=${page.nextAfter}`)).toEqual([visa]);
    const row = expectStatus(
      await consoleCall('GET', `/transactions?transactionId=${mastercard}`, { session }),
      200,
    ).body.transactions[0];
    expect(row).toMatchObject({
      cardLastFourDigits: '9903',
      cardType: 'MASTERCARD',
      amount: 12.34,
      currency: 'USD',
      status: 'CAPTURED',
    });
    expect(JSON.stringify(row)).not.toContain('5425233430109903');
  });

  it('answers bad criteria with a validation error naming the property', async () => {
    const session = await signedIn(merchant);
    for (const [query, property] of [
      ['lastFour=12a4', 'lastFour'],
      ['amount=ten', 'amount'],
      ['from=2026-13-01', 'from'],
      ['status=LOST', 'status'],
      ['pagesize=0', 'pagesize'],
    ]) {
      const message = expectError(
        await consoleCall('GET', `/transactions?${query}`, { session }),
        400,
        'VALIDATION_GENERAL_FAILURE',
      );
      expect((message as unknown as { invalidProperty: { name: string } }).invalidProperty.name).toBe(
        property,
      );
    }
  });
});

describe('GET /console/api/dashboard', () => {
  it('counts volume, approvals, declines by reason and IPN deliveries over the days asked', async () => {
    const seller = await stack.newMerchant();
    const session = await signedIn(seller);
    expectStatus(await api.post('/transactions', saleBody({ amount: 20 }), as(seller)), 200);
    expectStatus(await api.post('/transactions', saleBody({ amount: 5, currency: 'EUR' }), as(seller)), 200);
    const declined = saleBody({
      creditCard: {
        cardNumber: '4917484589897107',
        securityCode: '123',
        expirationMonth: '02',
        expirationYear: '2031',
      },
    });
    expectStatus(await api.post('/transactions', declined, as(seller)), 400);
    expectStatus(await api.post('/transactions', saleBody({ amount: 10.51 }), as(seller)), 400);
    const figures = expectStatus(await consoleCall('GET', '/dashboard?days=7', { session }), 200).body;
    expect(figures.days).toHaveLength(7);
    expect(figures.days.at(-1)).toBe(new Date().toISOString().slice(0, 10));
    expect(figures.volume).toEqual([
      { currency: 'EUR', amounts: [0, 0, 0, 0, 0, 0, 5] },
      { currency: 'USD', amounts: [0, 0, 0, 0, 0, 0, 20] },
    ]);
    expect(figures.approvals).toEqual({ approved: [0, 0, 0, 0, 0, 0, 2], declined: [0, 0, 0, 0, 0, 0, 2] });
    expect(figures.declinesByReason).toEqual([
      { reason: 'DO_NOT_HONOR', count: 1 },
      { reason: 'INSUFFICIENT_FUNDS', count: 1 },
    ]);
    expect(figures.deliveries).toEqual([]);
    expectError(
      await consoleCall('GET', '/dashboard?days=91', { session }),
      400,
      'VALIDATION_GENERAL_FAILURE',
    );
  });
});
