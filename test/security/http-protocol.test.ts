import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { bindings } from '@paywire/core';
import { fromXml } from '@paywire/xml';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallOptions, client, type Reply, saleBody } from '../support/http.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';

/**
 * The wire protocol of /services/2 end to end: authentication, merchant isolation, version header,
 * formats, hostile input, routing, status rules, error hygiene and card data protection
 * (see docs/conformance.md: Paths and versions, Formats, Errors, Authentication).
 */

type Format = 'json' | 'xml';

const NAMESPACE = 'http://ws.plimus.com';
const VISA = '4263982640269299';
const MEBIBYTE = 1024 * 1024;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

// ---------------------------------------------------------------------------------------------------
// Helpers

/** Every error reply of this file, swept for leaked internals at the end. */
const errorReplies: { what: string; reply: Reply }[] = [];

function record(what: string, reply: Reply): Reply {
  if (reply.status >= 400) errorReplies.push({ what, reply });
  return reply;
}

/** client(stack), with every error reply recorded. */
const api = {
  call: async (method: string, path: string, body?: unknown, options?: CallOptions) =>
    record(`${method} ${path}`, await client(stack).call(method, path, body, options)),
  get: (path: string, options?: CallOptions) => api.call('GET', path, undefined, options),
  post: (path: string, body?: unknown, options?: CallOptions) => api.call('POST', path, body, options),
  put: (path: string, body?: unknown, options?: CallOptions) => api.call('PUT', path, body, options),
  delete: (path: string, options?: CallOptions) => api.call('DELETE', path, undefined, options),
};

function parseBody(text: string, contentType: string): unknown {
  if (contentType.includes('json')) return JSON.parse(text);
  if (contentType.includes('xml') && /<messages[\s>]/.test(text)) {
    return fromXml(text, { root: 'messages', repeated: ['message'] });
  }
  return undefined;
}

/**
 * HTTP with nothing added: no default Accept, no Content-Type unless given, headers exactly as written.
 * `path` is relative to /services/2 and sent verbatim.
 */
function rawCall(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Reply> {
  const base = new URL(stack.baseUrl);
  const sized = body !== undefined && headers['transfer-encoding'] === undefined;
  const sent = sized ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers;
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: base.hostname, port: base.port, method, path: `${base.pathname}${path}`, headers: sent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const replyHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) replyHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          const reply: Reply = {
            status: response.statusCode ?? 0,
            headers: replyHeaders,
            text,
            body: parseBody(text, replyHeaders.get('content-type') ?? ''),
          };
          resolve(record(`${method} ${path} (raw)`, reply));
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** The interface's error body, in the given format, with the given status, name and code. */
function expectError(reply: Reply, status: number, errorName: string, code: number, format: Format = 'json') {
  expect(reply.status, reply.text.slice(0, 500)).toBe(status);
  const first = reply.body?.message?.[0];
  if (format === 'json') {
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(first).toMatchObject({ errorName, code });
  } else {
    expect(reply.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(reply.text).toMatch(/^<\?xml[^>]*\?>\s*<messages xmlns="http:\/\/ws\.plimus\.com">/);
    expect(first).toMatchObject({ errorName, code: String(code) });
  }
  expect(typeof first?.description).toBe('string');
}

function expectJson(reply: Reply, status = 200) {
  expect(reply.status, reply.text.slice(0, 500)).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
}

function expectXml(reply: Reply, root: string, status = 200) {
  expect(reply.status, reply.text.slice(0, 500)).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/xml/);
  expect(reply.text).toMatch(new RegExp(`^<\\?xml[^>]*\\?>\\s*<${root} xmlns="${NAMESPACE}">`));
}

const basic = (credential: string) => `Basic ${Buffer.from(credential, 'utf8').toString('base64')}`;
const asHeader = (authorization: string): TestMerchant => ({
  id: 0,
  username: '',
  password: '',
  authorization,
});

/** A card sale as XML. `namespace`: the default xmlns, none, or a `pw:` prefix on every element. */
function saleXml(
  options: {
    namespace?: 'default' | 'none' | 'prefixed';
    amount?: string;
    firstName?: string;
    cardNumber?: string;
    securityCode?: string;
    root?: string;
  } = {},
): string {
  const prefix = options.namespace === 'prefixed' ? 'pw:' : '';
  const xmlns = {
    default: ` xmlns="${NAMESPACE}"`,
    none: '',
    prefixed: ` xmlns:pw="${NAMESPACE}"`,
  }[options.namespace ?? 'default'];
  const el = (name: string, content: string) => `<${prefix}${name}>${content}</${prefix}${name}>`;
  const root = options.root ?? 'card-transaction';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${prefix}${root}${xmlns}>${[
    el('card-transaction-type', 'AUTH_CAPTURE'),
    el('amount', options.amount ?? '25.50'),
    el('currency', 'USD'),
    el('soft-descriptor', 'PAYWIRE TEST'),
    el(
      'card-holder-info',
      el('first-name', options.firstName ?? 'Ada') + el('last-name', 'Lovelace') + el('zip', '02139'),
    ),
    el(
      'credit-card',
      el('card-number', options.cardNumber ?? VISA) +
        el('security-code', options.securityCode ?? '837') +
        el('expiration-month', '02') +
        el('expiration-year', '2031'),
    ),
  ].join('')}</${prefix}${root}>`;
}

const tokenSale = (pfToken: string) => ({
  cardTransactionType: 'AUTH_CAPTURE',
  amount: 9,
  currency: 'USD',
  pfToken,
});

const unique = (prefix: string) => `${prefix}-${randomBytes(6).toString('hex')}`;

async function sale(overrides: Record<string, unknown> = {}, merchant?: TestMerchant) {
  const reply = await api.post('/transactions', saleBody(overrides), merchant ? { merchant } : {});
  expectJson(reply);
  return reply.body as { transactionId: string; vaultedShopperId: number; amount: number };
}

/** A payment fields token of the merchant, bound to a card by the (credential-less) hosted page. */
async function boundToken(card: { ccNumber: string; cvv: string }, merchant?: TestMerchant) {
  const created = await api.post('/payment-fields-tokens', undefined, merchant ? { merchant } : {});
  expect(created.status, created.text).toBe(201);
  const token = created.headers.get('location')?.split('/').at(-1) ?? '';
  const bound = await api.put(
    `/payment-fields-tokens/${token}`,
    { ...card, expDate: '02/2031' },
    { merchant: null },
  );
  expectJson(bound);
  return token;
}

const requestLinesLogged = (path: string) =>
  stack.logs.filter((line) => line.includes('"message":"request"') && line.includes(path));

// ---------------------------------------------------------------------------------------------------

describe('authentication', () => {
  const wrongPassword = `wrong-${randomBytes(8).toString('hex')}`;
  const nulPassword = `nul-${randomBytes(8).toString('hex')}`;

  it('answers a request without Authorization with 401, WWW-Authenticate and the error body', async () => {
    const reply = await api.get('/sandbox/clock', { merchant: null });
    expectError(reply, 401, 'UNAUTHORIZED', 10401);
    expect(reply.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+"/);
  });

  it('answers 401 in XML when Accept is application/xml', async () => {
    const reply = await api.get('/sandbox/clock', { merchant: null, accept: 'application/xml' });
    expectError(reply, 401, 'UNAUTHORIZED', 10401, 'xml');
    expect(reply.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('checks credentials before reading the request (POST without credentials is 401, not 400)', async () => {
    const reply = await api.post('/transactions', saleBody(), { merchant: null });
    expectError(reply, 401, 'UNAUTHORIZED', 10401);
  });

  const badHeaders: [string, () => string][] = [
    ['a wrong password', () => basic(`${stack.merchant.username}:${wrongPassword}`)],
    ['an unknown user', () => basic(`nobody_${randomBytes(4).toString('hex')}:${stack.merchant.password}`)],
    ['two spaces after Basic', () => stack.merchant.authorization.replace('Basic ', 'Basic  ')],
    ['the Bearer scheme', () => 'Bearer x'],
    [
      'the Bearer scheme with good credentials',
      () => stack.merchant.authorization.replace('Basic', 'Bearer'),
    ],
    ['a value that is not base64', () => 'Basic !!not*base64!!'],
    ['no colon in the decoded value', () => basic(`${stack.merchant.username}${stack.merchant.password}`)],
    ['an empty user name', () => basic(`:${stack.merchant.password}`)],
    ['Basic and nothing else', () => 'Basic'],
    ['a NUL character in the user name', () => basic(`${stack.merchant.username}\u0000:${nulPassword}`)],
  ];

  describe.each(['json', 'xml'] as const)('in %s', (format) => {
    it.each(badHeaders)('answers 401 for %s', async (_name, header) => {
      const reply = await api.get('/sandbox/clock', {
        merchant: asHeader(header()),
        ...(format === 'xml' ? { accept: 'application/xml' } : {}),
      });
      expectError(reply, 401, 'UNAUTHORIZED', 10401, format);
      expect(reply.headers.get('www-authenticate')).toMatch(/^Basic /);
    });
  });

  it('lets the right credentials in, on GET and POST', async () => {
    expectJson(await api.get('/sandbox/clock'));
    expectJson(await api.post('/transactions', saleBody()));
  });

  it('keys the verdict cache by the whole credential: a wrong password after a right one is still 401', async () => {
    const { username, password } = stack.merchant;
    expectJson(await api.get('/sandbox/clock', { merchant: asHeader(basic(`${username}:${password}`)) }));
    const wrong = await api.get('/sandbox/clock', {
      merchant: asHeader(basic(`${username}:${password.slice(0, -1)}`)),
    });
    expectError(wrong, 401, 'UNAUTHORIZED', 10401);
    const longer = await api.get('/sandbox/clock', {
      merchant: asHeader(basic(`${username}:${password}x`)),
    });
    expectError(longer, 401, 'UNAUTHORIZED', 10401);
    // and a refused credential does not poison the good one
    expectJson(await api.get('/sandbox/clock'));
  });

  it('separates merchants: each set of credentials acts as its own merchant', async () => {
    const other = await stack.newMerchant();
    const mine = await sale();
    const reply = await api.get(`/transactions/${mine.transactionId}`, { merchant: other });
    expectError(reply, 404, 'TRANSACTION_NOT_FOUND', 20001);
  });

  it('never writes a password or the Authorization value to the logs', () => {
    const logs = stack.logs.join('\n');
    const secrets = [
      stack.merchant.password,
      wrongPassword,
      nulPassword,
      stack.merchant.authorization.slice(6),
    ];
    for (const secret of secrets) {
      expect(logs).not.toContain(secret);
    }
    // not vacuous: the facade's request log is part of stack.logs
    expect(requestLinesLogged('/services/2/sandbox/clock').length).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('logging', () => {
  it("writes the facade's request log to the logger's sink (stack.logs), so the scans below see it", async () => {
    expectJson(await api.get('/sandbox/clock?logged'));
    const lines = requestLinesLogged('/services/2/sandbox/clock');
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.parse(lines.at(-1) ?? '{}')).toMatchObject({ method: 'GET', status: 200 });
  });
});

// ---------------------------------------------------------------------------------------------------

describe('merchant isolation', () => {
  let intruder: TestMerchant;
  let authorization: { transactionId: string; amount: number };
  let merchantTransactionId: string;
  let captured: { transactionId: string; vaultedShopperId: number };
  let shopper: { vaultedShopperId: number; firstName: string };
  let merchantShopperId: string;
  let token: string;

  beforeAll(async () => {
    intruder = await stack.newMerchant();
    merchantTransactionId = unique('iso');
    authorization = await sale({ cardTransactionType: 'AUTH_ONLY', merchantTransactionId, amount: 40 });
    captured = await sale({ amount: 30 });
    merchantShopperId = unique('shopper');
    const created = await api.post('/vaulted-shoppers', {
      firstName: 'Grace',
      lastName: 'Hopper',
      merchantShopperId,
      paymentSources: {
        creditCardInfo: [
          {
            creditCard: {
              cardNumber: '5425233430109903',
              securityCode: '123',
              expirationMonth: '03',
              expirationYear: '2031',
            },
          },
        ],
      },
    });
    expectJson(created);
    shopper = created.body;
    token = await boundToken({ ccNumber: '4007702835532454', cvv: '456' });
  });

  it("cannot read another merchant's transaction", async () => {
    for (const id of [authorization.transactionId, captured.transactionId]) {
      expectError(
        await api.get(`/transactions/${id}`, { merchant: intruder }),
        404,
        'TRANSACTION_NOT_FOUND',
        20001,
      );
    }
  });

  it("cannot capture another merchant's authorization, by transactionId or merchantTransactionId", async () => {
    const byId = await api.put(
      '/transactions',
      { cardTransactionType: 'CAPTURE', transactionId: authorization.transactionId },
      { merchant: intruder },
    );
    expectError(byId, 400, 'AUTHORIZATION_NOT_FOUND', 14002);
    const byMerchantId = await api.put(
      '/transactions',
      { cardTransactionType: 'CAPTURE', merchantTransactionId },
      { merchant: intruder },
    );
    expectError(byMerchantId, 400, 'AUTHORIZATION_NOT_FOUND', 14002);
  });

  it("cannot reverse another merchant's authorization", async () => {
    const reply = await api.put(
      '/transactions',
      { cardTransactionType: 'AUTH_REVERSAL', transactionId: authorization.transactionId },
      { merchant: intruder },
    );
    expectError(reply, 400, 'AUTHORIZATION_NOT_FOUND', 14002);
  });

  it("cannot refund another merchant's transaction, in either form", async () => {
    for (const id of [captured.transactionId, authorization.transactionId]) {
      expectError(
        await api.put(`/transactions/${id}/refund?amount=1`, undefined, { merchant: intruder }),
        404,
        'TRANSACTION_NOT_FOUND',
        20001,
      );
      expectError(
        await api.post(`/transactions/refund/${id}`, { amount: 1 }, { merchant: intruder }),
        404,
        'TRANSACTION_NOT_FOUND',
        20001,
      );
    }
  });

  it("cannot read or change another merchant's vaulted shopper", async () => {
    const options = { merchant: intruder };
    expectError(
      await api.get(`/vaulted-shoppers/${shopper.vaultedShopperId}`, options),
      404,
      'SHOPPER_NOT_FOUND',
      20002,
    );
    expectError(
      await api.get(`/vaulted-shoppers/merchant/${merchantShopperId}`, options),
      404,
      'SHOPPER_NOT_FOUND',
      20002,
    );
    expectError(
      await api.put(`/vaulted-shoppers/${shopper.vaultedShopperId}`, { firstName: 'Mallory' }, options),
      404,
      'SHOPPER_NOT_FOUND',
      20002,
    );
  });

  it("cannot charge another merchant's shopper by vaultedShopperId", async () => {
    const reply = await api.post(
      '/transactions',
      {
        cardTransactionType: 'AUTH_CAPTURE',
        amount: 5,
        currency: 'USD',
        vaultedShopperId: shopper.vaultedShopperId,
      },
      { merchant: intruder },
    );
    expectError(reply, 404, 'SHOPPER_NOT_FOUND', 20002);
  });

  it("cannot use another merchant's payment fields token", async () => {
    const body = { cardTransactionType: 'AUTH_CAPTURE', amount: 5, currency: 'USD', pfToken: token };
    expectError(
      await api.post('/transactions', body, { merchant: intruder }),
      400,
      'INVALID_PAYMENT_DETAILS',
      20012,
    );
    const asShopper = await api.post(
      '/vaulted-shoppers',
      { firstName: 'Eve', lastName: 'Intruder', paymentSources: { creditCardInfo: [{ pfToken: token }] } },
      { merchant: intruder },
    );
    expectError(asShopper, 400, 'INVALID_PAYMENT_DETAILS', 20012);
  });

  it("leaves the owner's objects as they were", async () => {
    const auth = await api.get(`/transactions/${authorization.transactionId}`);
    expectJson(auth);
    expect(auth.body).toMatchObject({ cardTransactionType: 'AUTH_ONLY', amount: 40 });
    // still open: the owner can capture it in full
    const capture = await api.put('/transactions', {
      cardTransactionType: 'CAPTURE',
      transactionId: authorization.transactionId,
    });
    expectJson(capture);
    expect(capture.body).toMatchObject({ cardTransactionType: 'CAPTURE', amount: 40 });
    // nothing was refunded: the whole amount is still refundable
    const refund = await api.post(`/transactions/refund/${captured.transactionId}`, {});
    expectJson(refund);
    expect(refund.body).toMatchObject({ amount: 30, refundStatus: 'SUCCESS' });

    const owned = await api.get(`/vaulted-shoppers/${shopper.vaultedShopperId}`);
    expectJson(owned);
    expect(owned.body).toMatchObject({ firstName: 'Grace', lastName: 'Hopper', merchantShopperId });
    expect(owned.body.paymentSources.creditCardInfo).toHaveLength(1);

    // the token is unspent: the owner can still pay with it
    const paid = await api.post('/transactions', {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 5,
      currency: 'USD',
      pfToken: token,
    });
    expectJson(paid);
    expect(paid.body.creditCard.cardLastFourDigits).toBe('2454');
  });
});

// ---------------------------------------------------------------------------------------------------

describe('version header bluesnap-version', () => {
  it.each([
    ['absent', undefined],
    ['1.0', '1.0'],
    ['2.0', '2.0'],
    ['3.0', '3.0'],
  ])('accepts %s on GET and POST', async (_name, version) => {
    const headers: Record<string, string> = version ? { 'bluesnap-version': version } : {};
    expectJson(await api.get('/sandbox/clock', { headers }));
    expectJson(await api.post('/transactions', saleBody(), { headers }));
  });

  it.each(['9.9', 'abc', '2', '2.0.0'])(
    'answers %s with 400 INVALID_API_VERSION on GET and POST',
    async (version) => {
      const headers = { 'bluesnap-version': version };
      const get = await api.get('/sandbox/clock', { headers });
      expectError(get, 400, 'INVALID_API_VERSION', 10000);
      expect(get.body.message[0].invalidProperty).toMatchObject({ name: 'bluesnap-version' });
      expectError(
        await api.post('/transactions', saleBody(), { headers }),
        400,
        'INVALID_API_VERSION',
        10000,
      );
    },
  );

  it('answers a bad version in XML for an XML request', async () => {
    const reply = await api.post('/transactions', saleXml(), {
      format: 'xml',
      headers: { 'bluesnap-version': '9.9' },
    });
    expectError(reply, 400, 'INVALID_API_VERSION', 10000, 'xml');
  });
});

// ---------------------------------------------------------------------------------------------------

describe('formats', () => {
  it('reads and answers JSON', async () => {
    const reply = await api.post('/transactions', saleBody());
    expectJson(reply);
    expect(reply.body).toMatchObject({ amount: 25.5, currency: 'USD' });
    expect(reply.body.processingInfo.processingStatus).toBe('success');
  });

  it.each(['application/xml', 'text/xml', 'application/xml; charset=utf-8'])(
    'reads and answers XML sent as %s',
    async (contentType) => {
      const reply = await api.post('/transactions', saleXml(), {
        format: 'xml',
        headers: { 'content-type': contentType },
      });
      expectXml(reply, 'card-transaction');
      expect(reply.body).toMatchObject({ amount: '25.50', currency: 'USD' });
      expect(reply.body.processingInfo.processingStatus).toBe('SUCCESS');
    },
  );

  it.each([
    ['with the default namespace', 'default'],
    ['without a namespace', 'none'],
    ['with a prefixed namespace', 'prefixed'],
  ] as const)('accepts an XML document %s', async (_name, namespace) => {
    const reply = await api.post('/transactions', saleXml({ namespace, amount: '12.34' }), { format: 'xml' });
    expectXml(reply, 'card-transaction');
    expect(reply.body).toMatchObject({ amount: '12.34', cardHolderInfo: { firstName: 'Ada' } });
  });

  describe('a body in a format we do not read is 415', () => {
    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json'])(
      'Content-Type %s',
      async (contentType) => {
        const reply = await api.post('/transactions', saleBody(), {
          headers: { 'content-type': contentType },
        });
        expectError(reply, 415, 'UNSUPPORTED_MEDIA_TYPE', 10415);
      },
    );

    it('no Content-Type at all', async () => {
      const reply = await rawCall(
        'POST',
        '/transactions',
        { authorization: stack.merchant.authorization },
        JSON.stringify(saleBody()),
      );
      expectError(reply, 415, 'UNSUPPORTED_MEDIA_TYPE', 10415);
    });

    it('in XML when Accept is application/xml', async () => {
      const reply = await api.post('/transactions', saleBody(), {
        headers: { 'content-type': 'text/plain' },
        accept: 'application/xml',
      });
      expectError(reply, 415, 'UNSUPPORTED_MEDIA_TYPE', 10415, 'xml');
    });
  });

  it('answers a JSON request in XML when Accept is application/xml', async () => {
    const reply = await api.post('/transactions', saleBody(), { accept: 'application/xml' });
    expectXml(reply, 'card-transaction');
    expect(reply.body).toMatchObject({ amount: '25.50', processingInfo: { processingStatus: 'SUCCESS' } });
  });

  it('answers an XML request in JSON when Accept is application/json', async () => {
    const reply = await api.post('/transactions', saleXml(), { format: 'xml', accept: 'application/json' });
    expectJson(reply);
    expect(reply.body).toMatchObject({ amount: 25.5, processingInfo: { processingStatus: 'success' } });
  });

  it('prefers the type with the higher q: "application/json;q=0.5, application/xml" gives XML', async () => {
    const reply = await api.post('/transactions', saleBody(), {
      accept: 'application/json;q=0.5, application/xml',
    });
    expectXml(reply, 'card-transaction');
  });

  it.each([
    ['*/*', 'json'],
    ['*/*', 'xml'],
    ['text/html', 'xml'],
    ['application/*', 'xml'],
  ] as const)('falls back to the request format for Accept %s (%s request)', async (accept, format) => {
    const reply = await api.post('/transactions', format === 'json' ? saleBody() : saleXml(), {
      format,
      accept,
    });
    if (format === 'json') expectJson(reply);
    else expectXml(reply, 'card-transaction');
  });

  it('answers JSON when there is neither Accept nor a body', async () => {
    const reply = await rawCall('GET', '/sandbox/clock', { authorization: stack.merchant.authorization });
    expectJson(reply);
    expect(reply.body).toMatchObject({ offsetSeconds: expect.any(Number), now: expect.any(String) });
  });

  it('answers an error in JSON when there is neither Accept nor a body', async () => {
    const reply = await rawCall('GET', '/transactions/1', { authorization: stack.merchant.authorization });
    expectError(reply, 404, 'TRANSACTION_NOT_FOUND', 20001);
  });

  it('accepts bodiless requests that still send Content-Type: application/json', async () => {
    const headers = { 'content-type': 'application/json' };
    expectJson(await api.get('/sandbox/clock', { headers }));
    const created = await api.post('/payment-fields-tokens', undefined, { headers });
    expect(created.status, created.text).toBe(201);
    const { transactionId } = await sale();
    const refund = await api.put(`/transactions/${transactionId}/refund?amount=1`, undefined, { headers });
    expect(refund.status, refund.text).toBe(204);
  });

  it('declares xmlns="http://ws.plimus.com" on the root of every XML reply', async () => {
    const reply = await api.get('/sandbox/clock', { accept: 'application/xml' });
    expectXml(reply, 'sandbox-clock');
    const error = await api.get('/transactions/1', { accept: 'application/xml' });
    expectError(error, 404, 'TRANSACTION_NOT_FOUND', 20001, 'xml');
  });
});

// ---------------------------------------------------------------------------------------------------

describe('bad input never gives a 5xx', () => {
  const nested = (depth: number, leaf: string) => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

  const badJson: [string, () => string][] = [
    ['malformed JSON', () => '{"cardTransactionType": "AUTH_CAPTURE", "amount": 10,'],
    ['a JSON array', () => JSON.stringify([saleBody()])],
    ['a JSON string', () => '"AUTH_CAPTURE"'],
    ['a JSON number', () => '42'],
    ['JSON null', () => 'null'],
    ['an amount that is a boolean', () => JSON.stringify(saleBody({ amount: true }))],
    ['an amount that is an object', () => JSON.stringify(saleBody({ amount: { value: 10 } }))],
    ['a currency that is a number', () => JSON.stringify(saleBody({ currency: 840 }))],
    ['creditCard that is a string', () => JSON.stringify(saleBody({ creditCard: VISA }))],
    ['cardHolderInfo that is an array', () => JSON.stringify(saleBody({ cardHolderInfo: ['Ada'] }))],
    [
      'a card number that is a number',
      () =>
        JSON.stringify(
          saleBody({
            creditCard: { cardNumber: 4263982640269299, expirationMonth: '02', expirationYear: '2031' },
          }),
        ),
    ],
    [
      'a 600 KB first name',
      () => JSON.stringify(saleBody({ cardHolderInfo: { firstName: 'x'.repeat(600_000) } })),
    ],
    ['a 100 000-digit amount', () => JSON.stringify(saleBody({ amount: '9'.repeat(100_000) }))],
    [
      'a 1000-character merchantTransactionId',
      () => JSON.stringify(saleBody({ merchantTransactionId: 'm'.repeat(1000) })),
    ],
    [
      'a first name nested 100 000 objects deep',
      () =>
        JSON.stringify(saleBody({ cardHolderInfo: { firstName: 'PLACEHOLDER' } })).replace(
          '"PLACEHOLDER"',
          nested(100_000, '1'),
        ),
    ],
    [
      'a NUL character in a name',
      () => JSON.stringify(saleBody({ cardHolderInfo: { firstName: 'Ada\u0000', lastName: 'Lovelace' } })),
    ],
    [
      'a NUL character in merchantTransactionId',
      () => JSON.stringify(saleBody({ merchantTransactionId: 'order\u00001' })),
    ],
  ];

  it.each(badJson)('JSON: %s is 400 with the error body in JSON', async (_name, body) => {
    const reply = await api.post('/transactions', undefined, { raw: body() });
    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
  });

  const lol = (n: number) => `"${`&lol${n - 1};`.repeat(10)}"`;
  const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol0 "lol">
  ${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} ${lol(i + 1)}>`).join('\n  ')}
]>
<card-transaction xmlns="${NAMESPACE}"><soft-descriptor>&lol9;</soft-descriptor></card-transaction>`;

  const badXml: [string, () => string][] = [
    ['malformed XML', () => '<card-transaction><amount>10</card-transaction>'],
    ['text that is not XML', () => 'cardTransactionType=AUTH_CAPTURE&amount=10'],
    ['a JSON document', () => JSON.stringify(saleBody())],
    ['a DOCTYPE with entities (billion laughs)', () => billionLaughs],
    [
      'an external entity',
      () =>
        `<?xml version="1.0"?><!DOCTYPE t [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${saleXml({ firstName: '&xxe;' }).replace(/^<\?xml[^>]*\?>\n/, '')}`,
    ],
    ['an undefined entity', () => saleXml({ firstName: '&lol;' })],
    ['the wrong root element', () => saleXml({ root: 'vaulted-shopper' })],
    ['elements nested 40 deep', () => saleXml({ firstName: `${'<a>'.repeat(40)}x${'</a>'.repeat(40)}` })],
    [
      'elements nested 100 000 deep',
      () => saleXml({ firstName: `${'<a>'.repeat(100_000)}x${'</a>'.repeat(100_000)}` }),
    ],
    ['an amount that is not a number', () => saleXml({ amount: 'ten' })],
    ['a card number with letters', () => saleXml({ cardNumber: '4263abcd40269299' })],
    ['a 600 KB first name', () => saleXml({ firstName: 'x'.repeat(600_000) })],
    ['a NUL character reference', () => saleXml({ firstName: 'Ada&#0;' })],
    ['two root elements', () => `${saleXml()}<card-transaction/>`],
  ];

  it.each(badXml)('XML: %s is 400 with the error body in XML', async (_name, body) => {
    const reply = await api.post('/transactions', undefined, { format: 'xml', raw: body() });
    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001, 'xml');
  });

  it('answers a NUL character in pfToken with 400, not 5xx', async () => {
    const reply = await api.post('/transactions', tokenSale('tok\u0000en'));
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.message[0].errorName).toMatch(/^(INVALID_PAYMENT_DETAILS|VALIDATION_GENERAL_FAILURE)$/);
  });

  it('treats an id beyond the database integer range as not found, not as a failure', async () => {
    expectError(await api.get('/vaulted-shoppers/99999999999'), 404, 'SHOPPER_NOT_FOUND', 20002);
    const charge = await api.post('/transactions', {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 5,
      currency: 'USD',
      vaultedShopperId: 99_999_999_999,
    });
    expectError(charge, 404, 'SHOPPER_NOT_FOUND', 20002);
    expectError(await api.get('/transactions/999999999999999999'), 404, 'TRANSACTION_NOT_FOUND', 20001);
  });

  it('answers a NUL character in a path parameter with 4xx, not 5xx', async () => {
    const reply = await api.get('/vaulted-shoppers/merchant/abc%00def');
    expect(reply.status, reply.text).toBeLessThan(500);
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.body.message[0].errorName).toMatch(/^(SHOPPER_NOT_FOUND|VALIDATION_GENERAL_FAILURE)$/);
  });

  it('keeps unicode in names intact, in JSON and XML', async () => {
    const cardHolderInfo = { firstName: 'Zoë Ångström', lastName: '李小龍 🚀', zip: '10115' };
    const json = await api.post('/transactions', saleBody({ cardHolderInfo }));
    expectJson(json);
    expect(json.body.cardHolderInfo).toEqual(cardHolderInfo);
    const fetched = await api.get(`/transactions/${json.body.transactionId}`);
    expect(fetched.body.cardHolderInfo).toEqual(cardHolderInfo);

    const xml = await api.post('/transactions', saleXml({ firstName: 'Zoë &#x1F680; 李' }), {
      format: 'xml',
    });
    expectXml(xml, 'card-transaction');
    expect(xml.body.cardHolderInfo.firstName).toBe('Zoë 🚀 李');
  });

  describe('a body over 1 MiB is 413', () => {
    it('at exactly 1 MiB the body is still read (400 for its content); one byte more is 413', async () => {
      const padded = (size: number) => {
        const shell = JSON.stringify(saleBody({ cardHolderInfo: { firstName: '' } }));
        return shell.replace('"firstName":""', `"firstName":"${'x'.repeat(size - shell.length)}"`);
      };
      expect(Buffer.byteLength(padded(MEBIBYTE))).toBe(MEBIBYTE);
      const atLimit = await api.post('/transactions', undefined, { raw: padded(MEBIBYTE) });
      expectError(atLimit, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
      const over = await api.post('/transactions', undefined, { raw: padded(MEBIBYTE + 1) });
      expectError(over, 413, 'REQUEST_ENTITY_TOO_LARGE', 10413);
    });

    it('in JSON', async () => {
      const raw = JSON.stringify(saleBody({ cardHolderInfo: { firstName: 'x'.repeat(MEBIBYTE) } }));
      expectError(
        await api.post('/transactions', undefined, { raw }),
        413,
        'REQUEST_ENTITY_TOO_LARGE',
        10413,
      );
    });

    it('in XML', async () => {
      const raw = saleXml({ firstName: 'x'.repeat(MEBIBYTE) });
      const reply = await api.post('/transactions', undefined, { format: 'xml', raw });
      expectError(reply, 413, 'REQUEST_ENTITY_TOO_LARGE', 10413, 'xml');
    });

    it('sent in chunks, without Content-Length', async () => {
      const reply = await rawCall(
        'POST',
        '/transactions',
        {
          authorization: stack.merchant.authorization,
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        },
        JSON.stringify({ padding: 'x'.repeat(MEBIBYTE + 1) }),
      );
      expectError(reply, 413, 'REQUEST_ENTITY_TOO_LARGE', 10413);
    });
  });
});

// ---------------------------------------------------------------------------------------------------

describe('routing', () => {
  it('answers an unknown path with 404 RESOURCE_NOT_FOUND, in JSON and XML', async () => {
    expectError(await api.get('/no-such-resource'), 404, 'RESOURCE_NOT_FOUND', 10404);
    expectError(
      await api.get('/no-such-resource', { accept: 'application/xml' }),
      404,
      'RESOURCE_NOT_FOUND',
      10404,
      'xml',
    );
    expectError(await api.post('/transactions/1/nothing', saleBody()), 404, 'RESOURCE_NOT_FOUND', 10404);
  });

  it.each(['DELETE', 'PATCH'])(
    'answers %s /transactions with 405 INVALID_HTTP_METHOD (85)',
    async (method) => {
      const reply = await api.call(method, '/transactions');
      expectError(reply, 405, 'INVALID_HTTP_METHOD', 85);
      expect(reply.headers.get('allow')).toMatch(/POST/);
    },
  );

  it('answers a wrong method in XML for an XML request', async () => {
    const reply = await api.delete('/transactions', { accept: 'application/xml' });
    expectError(reply, 405, 'INVALID_HTTP_METHOD', 85, 'xml');
  });

  describe('every route answers with a trailing / and with an empty trailing ?', () => {
    let transactionId: string;
    let authId: string;
    let shopperId: number;
    let merchantShopperId: string;

    beforeAll(async () => {
      transactionId = (await sale({ amount: 50 })).transactionId;
      authId = (await sale({ cardTransactionType: 'AUTH_ONLY' })).transactionId;
      merchantShopperId = unique('route');
      const shopper = await api.post('/vaulted-shoppers', {
        firstName: 'Route',
        lastName: 'Tester',
        merchantShopperId,
      });
      expectJson(shopper);
      shopperId = shopper.body.vaultedShopperId;
    });

    it.each(['/', '?', '/?'])('POST /transactions%s', async (tail) => {
      expectJson(await api.post(`/transactions${tail}`, saleBody()));
    });

    it.each(['/', '?'])('GET /transactions/{id}%s', async (tail) => {
      const reply = await api.get(`/transactions/${transactionId}${tail}`);
      expectJson(reply);
      expect(reply.body.transactionId).toBe(transactionId);
    });

    it.each(['/', '?'])('PUT /transactions%s (capture)', async (tail) => {
      const auth = await sale({ cardTransactionType: 'AUTH_ONLY' });
      const reply = await api.put(`/transactions${tail}`, {
        cardTransactionType: 'CAPTURE',
        transactionId: auth.transactionId,
      });
      expectJson(reply);
    });

    it('PUT /transactions/ (reversal)', async () => {
      const reply = await api.put('/transactions/', {
        cardTransactionType: 'AUTH_REVERSAL',
        transactionId: authId,
      });
      expectJson(reply);
      expect(reply.body.cardTransactionType).toBe('AUTH_REVERSAL');
    });

    it.each(['/?amount=1', '?amount=1'])('PUT /transactions/{id}/refund%s', async (tail) => {
      const reply = await api.put(`/transactions/${transactionId}/refund${tail}`);
      expect(reply.status, reply.text).toBe(204);
    });

    it.each(['/', '?'])('POST /transactions/refund/{id}%s', async (tail) => {
      expectJson(await api.post(`/transactions/refund/${transactionId}${tail}`, { amount: 1 }));
    });

    it.each(['/', '?'])(
      'POST /payment-fields-tokens%s, then PUT on the token with the same tail',
      async (tail) => {
        const created = await api.post(`/payment-fields-tokens${tail}`);
        expect(created.status, created.text).toBe(201);
        const token = created.headers.get('location')?.split('/').at(-1);
        const bound = await api.put(
          `/payment-fields-tokens/${token}${tail}`,
          { ccNumber: VISA, cvv: '837', expDate: '02/2031' },
          { merchant: null },
        );
        expectJson(bound);
      },
    );

    it.each(['/', '?'])('POST /vaulted-shoppers%s', async (tail) => {
      expectJson(await api.post(`/vaulted-shoppers${tail}`, { firstName: 'Ada', lastName: 'Byron' }));
    });

    it.each(['/', '?'])('GET and PUT /vaulted-shoppers/{id}%s', async (tail) => {
      expectJson(await api.get(`/vaulted-shoppers/${shopperId}${tail}`));
      expectJson(await api.put(`/vaulted-shoppers/${shopperId}${tail}`, { city: 'Berlin' }));
    });

    it.each(['/', '?'])('GET /vaulted-shoppers/merchant/{merchantShopperId}%s', async (tail) => {
      const reply = await api.get(`/vaulted-shoppers/merchant/${merchantShopperId}${tail}`);
      expectJson(reply);
      expect(reply.body.vaultedShopperId).toBe(shopperId);
    });

    it.each(['/', '?'])('GET and PUT /sandbox/clock%s', async (tail) => {
      expectJson(await api.get(`/sandbox/clock${tail}`));
      expectJson(await api.put(`/sandbox/clock${tail}`, { advanceBy: 'PT1S' }));
    });
  });
});

// ---------------------------------------------------------------------------------------------------

describe('status rules', () => {
  it('answers a successful POST /transactions with 200 and the body, never 201', async () => {
    for (const format of ['json', 'xml'] as const) {
      const reply = await api.post('/transactions', format === 'json' ? saleBody() : saleXml(), { format });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('location')).toBeNull();
      expect(reply.text.length).toBeGreaterThan(0);
    }
  });

  it('answers POST /payment-fields-tokens with 201 and a Location ending in the token', async () => {
    const reply = await api.post('/payment-fields-tokens');
    expect(reply.status).toBe(201);
    const location = reply.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^${stack.baseUrl}/payment-fields-tokens/[A-Za-z0-9_-]{22,}$`));
  });

  it('answers PUT refund with 204 and an empty body', async () => {
    const { transactionId } = await sale();
    const reply = await api.put(`/transactions/${transactionId}/refund?amount=5&reason=test`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
  });

  it('never answers a successful request with an empty 200', async () => {
    const { transactionId } = await sale();
    const auth = await sale({ cardTransactionType: 'AUTH_ONLY' });
    const shopper = await api.post('/vaulted-shoppers', { firstName: 'Empty', lastName: 'Check' });
    const created = await api.post('/payment-fields-tokens');
    const token = created.headers.get('location')?.split('/').at(-1);
    const replies = [
      await api.post('/transactions', saleBody()),
      await api.post('/transactions', saleXml(), { format: 'xml' }),
      await api.get(`/transactions/${transactionId}`),
      await api.put('/transactions', { cardTransactionType: 'CAPTURE', transactionId: auth.transactionId }),
      await api.post(`/transactions/refund/${transactionId}`, { amount: 1 }),
      shopper,
      await api.get(`/vaulted-shoppers/${shopper.body.vaultedShopperId}`),
      await api.put(`/vaulted-shoppers/${shopper.body.vaultedShopperId}`, { city: 'Paris' }),
      await api.put(
        `/payment-fields-tokens/${token}`,
        { ccNumber: VISA, cvv: '837', expDate: '02/2031' },
        { merchant: null },
      ),
      await api.get('/sandbox/clock'),
      await api.put('/sandbox/clock', { advanceBy: 'PT1S' }),
    ];
    for (const reply of replies) {
      expect(reply.status, reply.text).toBe(200);
      expect(reply.text.length).toBeGreaterThan(0);
      expect(reply.headers.get('content-type')).toMatch(/^application\/(json|xml)/);
    }
  });
});

// ---------------------------------------------------------------------------------------------------

describe('no internal details leak', () => {
  const internals: RegExp[] = [
    /\n\s+at /,
    /\bat [\w.<>]+ \(/,
    /TRPC/i,
    /mikro/i,
    /postgres/i,
    /select /i,
    /insert into/i,
    /SyntaxError/,
    /node_modules/,
    /file:\/\//,
    /\/work\//,
    /[\w-]+\.(?:ts|js|mjs|cjs):\d+/,
  ];

  function expectClean(reply: Reply, what: string) {
    for (const pattern of internals) expect(reply.text, `${what}: ${reply.text}`).not.toMatch(pattern);
  }

  it.each([
    ['malformed JSON', '{"amount":'],
    ['a JSON string', '"x"'],
    ['a NUL character in a name', JSON.stringify(saleBody({ cardHolderInfo: { firstName: '\u0000' } }))],
    ['a NUL character in a pfToken', JSON.stringify(tokenSale('a\u0000b'))],
    ['an unknown pfToken', JSON.stringify(tokenSale('no-such-token'))],
    ['an amount with three decimals', JSON.stringify(saleBody({ amount: '1.234' }))],
  ])('says nothing about internals for %s', async (name, raw) => {
    const reply = await api.post('/transactions', undefined, { raw });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expectClean(reply, name);
  });

  it('says nothing about internals in any error reply of this file', () => {
    expect(errorReplies.length).toBeGreaterThan(50); // the sweep covers the whole file's failures
    for (const { what, reply } of errorReplies) {
      expectClean(reply, what);
      expect(reply.text.length, what).toBeGreaterThan(0);
      expect(reply.headers.get('content-type'), what).toMatch(/^application\/(json|xml)/);
    }
  });

  it('answered no request of this file with a 5xx', () => {
    const failures = errorReplies.filter(({ reply }) => reply.status >= 500);
    expect(failures.map(({ what, reply }) => `${what} -> ${reply.status} ${reply.text}`)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('card data protection', () => {
  const cards = {
    jsonSale: { number: VISA, cvv: '837' },
    xmlSale: { number: '5425233430109903', cvv: '293' },
    token: { number: '374245455400126', cvv: '7361' },
    shopper: { number: '6011000180331112', cvv: '618' },
    declined: { number: '4917484589897107', cvv: '529' },
    expired: { number: '3566000020000410', cvv: '374' },
    luhnInvalid: { number: '4263982640269298', cvv: '946' },
    cvvMismatch: { number: '2222420000001113', cvv: '000' },
  };
  const numbers = Object.values(cards).map((card) => card.number);
  const creditCard = (card: { number: string; cvv: string }, expirationYear = '2031') => ({
    cardNumber: card.number,
    securityCode: card.cvv,
    expirationMonth: '02',
    expirationYear,
  });
  let usedToken: string;
  let unusedToken: string;
  const replies: Reply[] = [];

  beforeAll(async () => {
    const ok = async (reply: Reply) => {
      expect(reply.status, reply.text).toBe(200);
      replies.push(reply);
    };
    const refused = async (reply: Reply, errorName: string) => {
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.message[0].errorName).toBe(errorName);
      replies.push(reply);
    };
    await ok(await api.post('/transactions', saleBody({ creditCard: creditCard(cards.jsonSale) })));
    await ok(
      await api.post(
        '/transactions',
        saleXml({ cardNumber: cards.xmlSale.number, securityCode: cards.xmlSale.cvv }),
        { format: 'xml' },
      ),
    );
    usedToken = await boundToken({ ccNumber: cards.token.number, cvv: cards.token.cvv });
    await ok(await api.post('/transactions', tokenSale(usedToken)));
    unusedToken = await boundToken({ ccNumber: cards.token.number, cvv: cards.token.cvv });
    await ok(
      await api.post('/vaulted-shoppers', {
        firstName: 'Vault',
        lastName: 'Card',
        paymentSources: { creditCardInfo: [{ creditCard: creditCard(cards.shopper) }] },
      }),
    );
    await refused(
      await api.post('/transactions', saleBody({ creditCard: creditCard(cards.declined) })),
      'DO_NOT_HONOR',
    );
    await refused(
      await api.post('/transactions', saleBody({ creditCard: creditCard(cards.expired, '2020') })),
      'EXPIRED_CARD',
    );
    await refused(
      await api.post('/transactions', saleBody({ creditCard: creditCard(cards.luhnInvalid) })),
      'VALIDATION_GENERAL_FAILURE',
    );
    await refused(
      await api.post('/transactions', saleBody({ creditCard: creditCard(cards.cvvMismatch) })),
      'CVV_ERROR',
    );
    await refused(
      await api.post(
        '/transactions',
        saleXml({ cardNumber: cards.luhnInvalid.number, securityCode: cards.luhnInvalid.cvv }),
        { format: 'xml' },
      ),
      'VALIDATION_GENERAL_FAILURE',
    );
    await refused(
      await api.post(
        '/transactions',
        saleXml({ cardNumber: cards.declined.number, securityCode: cards.declined.cvv }),
        { format: 'xml' },
      ),
      'DO_NOT_HONOR',
    );
  });

  it('never echoes a full card number or CVV in a reply', () => {
    expect(replies.length).toBe(10);
    for (const reply of replies) {
      for (const number of numbers) expect(reply.text).not.toContain(number);
      expect(reply.text).not.toMatch(/security-?code|"cvv"/i);
    }
  });

  it('never logs a full card number or CVV', () => {
    const logs = stack.logs.join('\n');
    for (const number of numbers) expect(logs).not.toContain(number);
    for (const { cvv } of Object.values(cards)) {
      expect(logs).not.toContain(`"${cvv}"`);
      expect(logs).not.toContain(`>${cvv}<`);
    }
    expect(logs).not.toMatch(/securityCode|security-code|"cvv"|ccNumber|cardNumber/i);
    // not vacuous: the sales above were logged by the facade into stack.logs
    expect(requestLinesLogged('/services/2/transactions').length).toBeGreaterThanOrEqual(9);
  });

  describe('in the database', () => {
    let db: pg.Pool;
    beforeAll(async () => {
      db = stack.db;
    });

    const rowsOf = async (table: string) => (await db.query(`select * from ${table}`)).rows;

    it('keeps no full card number in plain text in any table', async () => {
      const tables = await db.query<{ schema: string; name: string }>(
        `select table_schema as schema, table_name as name from information_schema.tables
         where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
      );
      expect(tables.rows.map((t) => t.name)).toEqual(
        expect.arrayContaining(['stored_card', 'card_transaction', 'payment_fields_token']),
      );
      for (const { schema, name } of tables.rows) {
        const { rows } = await db.query<{ row: string }>(
          `select row_to_json(t)::text as row from "${schema}"."${name}" t`,
        );
        for (const { row } of rows) {
          for (const number of numbers) expect(row, `${schema}.${name}`).not.toContain(number);
          expect(row, `${schema}.${name}`).not.toMatch(/security_?code|"cvv"/i);
        }
      }
    });

    it('seals stored card numbers, and the sealed value holds the number only, never a CVV', async () => {
      const rows = await rowsOf('stored_card');
      const opened = rows.map((row) => {
        expect(row.sealed_number).toMatch(/^v2:\d+:[A-Za-z0-9+/]+=*$/);
        return stack.core.services.vault.open(
          row.sealed_number,
          bindings.card(row.merchant_id, row.fingerprint),
        );
      });
      for (const value of opened) expect(value).toMatch(/^\d{12,19}$/);
      expect(opened).toEqual(
        expect.arrayContaining([
          cards.jsonSale.number,
          cards.xmlSale.number,
          cards.token.number,
          cards.shopper.number,
        ]),
      );
      // declined and invalid cards were never vaulted
      for (const card of [cards.declined, cards.expired, cards.luhnInvalid, cards.cvvMismatch]) {
        expect(opened).not.toContain(card.number);
      }
    });

    it('keeps no card data in card_transaction', async () => {
      const rows = await rowsOf('card_transaction');
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        const text = JSON.stringify(row);
        for (const number of numbers) expect(text).not.toContain(number);
        expect(text).not.toMatch(/security_?code|"cvv"/i);
      }
    });

    it('erases the sealed card, CVV included, once a payment fields token is used', async () => {
      const rows = await rowsOf('payment_fields_token');
      const used = rows.find((row) => row.token === usedToken);
      expect(used?.used_at).not.toBeNull();
      expect(used?.sealed_card).toBeNull();
      // an unused bound token holds the card sealed, not in plain text
      const unused = rows.find((row) => row.token === unusedToken);
      expect(unused?.used_at).toBeNull();
      expect(unused?.sealed_card).toMatch(/^v2:\d+:/);
      expect(
        stack.core.services.vault.open(
          unused?.sealed_card,
          bindings.token(unused?.merchant_id, unused?.token),
        ),
      ).toContain(cards.token.cvv);
      for (const row of rows) {
        for (const number of numbers) expect(JSON.stringify(row)).not.toContain(number);
        if (row.used_at !== null) expect(row.sealed_card).toBeNull();
      }
    });
  });
});
