import { gzipSync } from 'node:zlib';
import { createPaywireClient } from '@paywire/client';
import { createFacade, listenFacade, loadFacadeEnv } from '@paywire/facade';
import { createLogger } from '@paywire/observability';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectStatus, type Reply, saleBody, xmlDocument } from '../support/http.ts';
import { expectErrorReply, type RawReply, rawExchange, rawRequest } from '../support/raw-http.ts';
import { type Stack, startStack } from '../support/stack.ts';

/**
 * Transport hardening over real HTTP (issue 12): Content-Encoding, NUL and unpaired surrogates, methods the
 * service does not serve (including those Node's parser refuses), oversized headers, and links that never
 * come from the Host header.
 */

let stack: Stack;
let api: ReturnType<typeof client>;
let path: string; // /services/2

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  path = new URL(stack.baseUrl).pathname;
});
afterAll(() => stack?.close());

const fetched = (reply: Reply) => ({ ...reply, contentType: reply.headers.get('content-type') ?? '' });
const raw = (reply: RawReply) => ({ ...reply, contentType: reply.headers['content-type'] ?? '' });
const send = (request: Buffer) => rawExchange(stack.baseUrl, request);
const saleXml = () =>
  xmlDocument('card-transaction', {
    ...saleBody(),
    cardHolderInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139' },
  });

describe('Content-Encoding', () => {
  it.each(['gzip', 'deflate', 'br', 'x-gzip', 'compress', 'zstd', 'identity, gzip', 'nonsense'])(
    '%s on an uncompressed body is 415 in the error shape, in the format of the request',
    async (encoding) => {
      const headers = { 'content-encoding': encoding };
      const json = await api.post('/transactions', saleBody(), { headers });
      expectErrorReply(fetched(json), 415, 'UNSUPPORTED_MEDIA_TYPE', 'json');
      expect(json.body.message[0].invalidProperty).toEqual({ name: 'content-encoding' });
      const xml = await api.post('/transactions', saleXml(), { format: 'xml', headers });
      expectErrorReply(fetched(xml), 415, 'UNSUPPORTED_MEDIA_TYPE', 'xml');
    },
  );

  it('refuses a body that really is gzip-compressed too (no client of the original compresses)', async () => {
    const body = gzipSync(JSON.stringify(saleBody()));
    const headers = {
      authorization: stack.merchant.authorization,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    };
    const reply = await send(rawRequest('POST', `${path}/transactions`, headers, body));
    expectErrorReply(raw(reply), 415, 'UNSUPPORTED_MEDIA_TYPE', 'json');
  });

  it('refuses it on every endpoint with a body, the public token binding included', async () => {
    const headers = { 'content-encoding': 'gzip' };
    for (const [method, route] of [
      ['POST', '/vaulted-shoppers'],
      ['POST', '/alt-transactions'],
      ['POST', '/batch/order-placement'],
      ['POST', '/notification-config'],
      ['POST', '/catalog/products'],
      ['POST', '/catalog/skus'],
      ['POST', '/recurring/plans'],
      ['POST', '/recurring/subscriptions'],
      ['POST', '/recurring/ondemand'],
      ['PUT', '/sandbox/clock'],
      ['PUT', '/payment-fields-tokens/abcdefghijklmnopqrstuvwxyz'],
    ] as const) {
      const reply = await api.call(method, route, { any: 'thing' }, { headers });
      expectErrorReply(fetched(reply), 415, 'UNSUPPORTED_MEDIA_TYPE', 'json');
    }
  });

  it('accepts identity, and a bodiless request whatever it says', async () => {
    expectStatus(
      await api.post('/transactions', saleBody(), { headers: { 'content-encoding': 'Identity' } }),
      200,
    );
    expectStatus(await api.get('/sandbox/clock', { headers: { 'content-encoding': 'gzip' } }), 200);
  });

  it('reads bytes that are not UTF-8 (a surrogate encoded as CESU-8) as U+FFFD: stored safely, never 5xx', async () => {
    const [before, after] = JSON.stringify(
      saleBody({ cardHolderInfo: { firstName: 'Ada~', lastName: 'L' } }),
    ).split('~');
    const body = Buffer.concat([
      Buffer.from(before ?? ''),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from(after ?? ''),
    ]);
    const headers = { authorization: stack.merchant.authorization, 'content-type': 'application/json' };
    const reply = await send(rawRequest('POST', `${path}/transactions`, headers, body));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.cardHolderInfo.firstName).toMatch(/^Ada\uFFFD+$/);
  });
});

describe('NUL and unpaired surrogates', () => {
  // JSON text with the escape as written: JSON.stringify would keep "\ud800" escaped the same way.
  const withText = (text: string) =>
    JSON.stringify(saleBody({ cardHolderInfo: { firstName: 'PLACEHOLDER', lastName: 'Lovelace' } })).replace(
      '"PLACEHOLDER"',
      text,
    );

  it.each([
    ['a lone high surrogate', '"\\ud800"', 'contains an unpaired UTF-16 surrogate'],
    ['a lone low surrogate', '"x\\udfff"', 'contains an unpaired UTF-16 surrogate'],
    ['reversed surrogates', '"\\udc00\\ud800"', 'contains an unpaired UTF-16 surrogate'],
    ['a NUL', '"Ada\\u0000"', 'contains a NUL character'],
  ])('%s in a JSON string is 400 naming the property', async (_name, text, problem) => {
    const reply = await api.post('/transactions', undefined, { raw: withText(text) });
    expectErrorReply(fetched(reply), 400, 'VALIDATION_GENERAL_FAILURE', 'json');
    expect(reply.body.message[0]).toMatchObject({
      description: `cardHolderInfo.firstName: ${problem}`,
      invalidProperty: { name: 'cardHolderInfo.firstName' },
    });
  });

  it('in the fields stored as JSON (IPN destinations, web info, contacts) and in property names', async () => {
    const cases: [string, string, string, string][] = [
      [
        'POST',
        '/notification-config',
        '{"ipnDestinations":[{"ipnUrl":"https://x.example/\\ud800"}]}',
        'ipnDestinations.0.ipnUrl',
      ],
      ['POST', '/batch/order-placement', '{"shopper":{"webInfo":{"ip":"\\udbff"}}}', 'shopper.webInfo.ip'],
      ['POST', '/vaulted-shoppers', '{"firstName":"A","lastName":"B","country":"\\u0000"}', 'country'],
      ['POST', '/alt-transactions', '{"payerInfo":{"\\ud800":1}}', 'payerInfo'],
      ['PUT', '/payment-fields-tokens/abcdefghijklmnopqrstuvwxyz', '{"ccNumber":"\\ud800"}', 'ccNumber'],
    ];
    for (const [method, route, body, property] of cases) {
      const reply = await api.call(method, route, undefined, { raw: body });
      expectErrorReply(fetched(reply), 400, 'VALIDATION_GENERAL_FAILURE', 'json');
      expect(reply.body.message[0].invalidProperty, `${route}: ${reply.text}`).toEqual({ name: property });
    }
  });

  it('in XML, as raw characters or character references, is 400 in XML', async () => {
    // (UTF-8 cannot carry a lone surrogate as such: in XML text only a character reference can name one.)
    for (const firstName of ['Ada&#xD800;', 'Ada&#xdfff;', 'Ada&#0;', 'Ada\u0000']) {
      const body = saleXml().replace('<first-name>Ada</first-name>', `<first-name>${firstName}</first-name>`);
      const reply = await api.post('/transactions', undefined, { format: 'xml', raw: body });
      expectErrorReply(fetched(reply), 400, 'VALIDATION_GENERAL_FAILURE', 'xml');
    }
  });

  it('in the query and the path', async () => {
    const query = await api.get('/translations/sepa/prenotification?transactionid=1%00');
    expectErrorReply(fetched(query), 400, 'VALIDATION_GENERAL_FAILURE', 'json');
    expect(query.body.message[0].invalidProperty).toEqual({ name: 'transactionid' });
    const inPath = await api.get('/vaulted-shoppers/merchant/a%00b', { accept: 'application/xml' });
    expectErrorReply(fetched(inPath), 400, 'VALIDATION_GENERAL_FAILURE', 'xml');
    // XML: the schema requires <message-value>, written empty when the value is not echoed.
    expect(inPath.body.message[0].invalidProperty).toEqual({ name: 'path', messageValue: '' });
  });

  it('refuses nesting deeper than 32 levels in JSON, naming where', async () => {
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    const reply = await api.post('/vaulted-shoppers', undefined, { raw: `{"firstName":${deep}}` });
    expectErrorReply(fetched(reply), 400, 'VALIDATION_GENERAL_FAILURE', 'json');
    expect(reply.body.message[0].description).toMatch(/^firstName(\.a)+: is nested deeper than 32 levels$/);
  });
});

describe('methods the service does not serve', () => {
  it.each(['TRACE', 'PROPFIND', 'SEARCH', 'MKCOL', 'LOCK', 'PURGE', 'REPORT', 'LINK'])(
    '%s is 405 INVALID_HTTP_METHOD (85) in JSON, or XML when asked',
    async (method) => {
      const json = await send(rawRequest(method, `${path}/transactions`));
      expectErrorReply(raw(json), 405, 'INVALID_HTTP_METHOD', 'json');
      expect(json.body.message[0].code).toBe(85);
      expect(json.headers.allow?.split(', ').sort()).toEqual(['POST', 'PUT']);
      const xml = await send(rawRequest(method, `${path}/transactions`, { accept: 'application/xml' }));
      expectErrorReply(raw(xml), 405, 'INVALID_HTTP_METHOD', 'xml');
      expect(xml.body.message[0].code).toBe('85');
    },
  );

  it.each(['FOO', 'BREW', 'GETT'])(
    '%s, which Node refuses before Koa, is 405 with the error body',
    async (method) => {
      const json = await send(rawRequest(method, `${path}/transactions`));
      expectErrorReply(raw(json), 405, 'INVALID_HTTP_METHOD', 'json');
      expect(json.headers.connection).toBe('close');
      const xml = await send(rawRequest(method, `${path}/transactions`, { accept: 'application/xml' }));
      expectErrorReply(raw(xml), 405, 'INVALID_HTTP_METHOD', 'xml');
      const xmlBody = await send(
        rawRequest(method, `${path}/transactions`, { 'content-type': 'application/xml' }, saleXml()),
      );
      expectErrorReply(raw(xmlBody), 405, 'INVALID_HTTP_METHOD', 'xml');
    },
  );

  it('CONNECT is 405 with the error body, not a reset', async () => {
    const json = await send(rawRequest('CONNECT', 'evil.example:443', { host: 'evil.example:443' }));
    expectErrorReply(raw(json), 405, 'INVALID_HTTP_METHOD', 'json');
    const xml = await send(
      rawRequest('CONNECT', 'evil.example:443', { host: 'evil.example:443', accept: 'text/xml' }),
    );
    expectErrorReply(raw(xml), 405, 'INVALID_HTTP_METHOD', 'xml');
  });

  it('a request line that is not HTTP is 400 with the error body', async () => {
    const reply = await send(Buffer.from('GET /services/2/transactions HTTP/9.9 extra\r\n\r\n'));
    expectErrorReply(raw(reply), 400, 'VALIDATION_GENERAL_FAILURE', 'json');
  });

  it('an Expect other than 100-continue is 417 with the error body', async () => {
    const headers = {
      authorization: stack.merchant.authorization,
      expect: 'teapot',
      accept: 'application/xml',
    };
    const reply = await send(rawRequest('GET', `${path}/sandbox/clock`, headers));
    expectErrorReply(raw(reply), 417, 'EXPECTATION_FAILED', 'xml');
  });

  it('an HTTP/1.1 request without Host is 400 with the error body; HTTP/1.0 needs none', async () => {
    const line = `GET ${path}/sandbox/clock`;
    const authorization = `Authorization: ${stack.merchant.authorization}\r\n`;
    const missing = await send(
      Buffer.from(`${line} HTTP/1.1\r\n${authorization}Accept: application/xml\r\n\r\n`),
    );
    expectErrorReply(raw(missing), 400, 'VALIDATION_GENERAL_FAILURE', 'xml');
    expect(missing.body.message[0].invalidProperty).toEqual({ name: 'host', messageValue: '' });
    const old = await send(Buffer.from(`${line} HTTP/1.0\r\n${authorization}\r\n`));
    expect(old.status, old.text).toBe(200);
  });

  it('keeps serving after all of them', async () => {
    expectStatus(await api.post('/transactions', saleBody()), 200);
  });
});

describe('oversized headers', () => {
  it.each([
    ['one 20 KB header', { 'x-padding': 'x'.repeat(20_000) }],
    [
      'many headers adding up to 32 KB',
      Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`x-h${i}`, 'y'.repeat(80)])),
    ],
    ['a 20 KB request target', {}],
  ])('%s is 431 with the error body', async (name, headers) => {
    const target = name.includes('target')
      ? `${path}/transactions?${'q'.repeat(20_000)}`
      : `${path}/transactions`;
    const json = await send(rawRequest('GET', target, headers));
    expectErrorReply(raw(json), 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', 'json');
    expect(json.body.message[0].code).toBe(10431);
    const xml = await send(rawRequest('GET', target, { accept: 'application/xml', ...headers }));
    expectErrorReply(raw(xml), 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', 'xml');
  });

  it('headers just under the limit are served', async () => {
    const reply = await send(
      rawRequest('GET', `${path}/sandbox/clock`, {
        authorization: stack.merchant.authorization,
        'x-padding': 'x'.repeat(15_000),
      }),
    );
    expect(reply.status, reply.text).toBe(200);
  });
});

describe('links come from the configured base URL, never from Host', () => {
  const forged = {
    host: 'evil.example',
    'x-forwarded-host': 'evil.example',
    'x-forwarded-proto': 'https',
    forwarded: 'host=evil.example;proto=https',
  };

  it('Location of a payment fields token ignores a forged Host', async () => {
    const headers = { authorization: stack.merchant.authorization, ...forged };
    const reply = await send(rawRequest('POST', `${path}/payment-fields-tokens`, headers));
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.location).toMatch(
      new RegExp(`^${stack.baseUrl}/payment-fields-tokens/[\\w-]{22,}$`),
    );
    expect(JSON.stringify(reply.headers)).not.toContain('evil.example');
  });

  it("a SEPA debit's pre-notification link ignores it too", async () => {
    const body = JSON.stringify({
      sepaDirectDebitTransaction: { iban: 'DE89370400440532013000' },
      payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
      amount: 10.5,
      currency: 'EUR',
      authorizedByShopper: true,
    });
    const headers = {
      authorization: stack.merchant.authorization,
      'content-type': 'application/json',
      ...forged,
    };
    const reply = await send(rawRequest('POST', `${path}/alt-transactions`, headers, body));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.sepaDirectDebitTransaction.preNotificationTranslationRef).toMatch(
      new RegExp(`^${stack.baseUrl}/translations/sepa/prenotification\\?transactionid=\\d+$`),
    );
    expect(reply.text).not.toContain('evil.example');
  });

  it('a replay under another Host is the same bytes', async () => {
    const post = (host: string) =>
      send(
        rawRequest('POST', `${path}/payment-fields-tokens`, {
          authorization: stack.merchant.authorization,
          'idempotency-key': 'links-replay-1',
          host,
        }),
      );
    const first = await post('first.example');
    const again = await post('evil.example');
    expect(first.status, first.text).toBe(201);
    expect(again.status, again.text).toBe(201);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.text).toBe(first.text);
    expect(first.headers.location?.startsWith(`${stack.baseUrl}/payment-fields-tokens/`)).toBe(true);
  });

  it('a facade given PUBLIC_BASE_URL links there, whatever the listen address or Host', async () => {
    const app = createFacade({
      core: createPaywireClient({ url: stack.core.url, credential: stack.facadeCredential }),
      log: createLogger('facade', () => {}),
      xmlNamespace: 'http://ws.plimus.com',
      authCacheSeconds: 60,
      logRequests: false,
      publicBaseUrl: 'https://pay.example.com/gateway',
    });
    const server = await listenFacade(app, 0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const reply = await rawExchange(
        base,
        rawRequest('POST', '/services/2/payment-fields-tokens', {
          authorization: stack.merchant.authorization,
          host: 'evil.example',
        }),
      );
      expect(reply.status, reply.text).toBe(201);
      expect(reply.headers.location).toMatch(
        /^https:\/\/pay\.example\.com\/gateway\/services\/2\/payment-fields-tokens\/[\w-]{22,}$/,
      );
    } finally {
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      });
    }
  });

  describe('PUBLIC_BASE_URL in the facade configuration', () => {
    /** The facade's configuration with its (required) core credential set. */
    const facadeEnv = (env: Record<string, string>) =>
      loadFacadeEnv({ CORE_CREDENTIAL: `pwc_1_${'x'.repeat(43)}`, ...env });

    it('is required in live mode, and must be https there', () => {
      expect(() => facadeEnv({ PAYWIRE_MODE: 'live' })).toThrow(/PUBLIC_BASE_URL/);
      expect(() => facadeEnv({ PAYWIRE_MODE: 'live', PUBLIC_BASE_URL: 'http://pay.example.com' })).toThrow(
        /PUBLIC_BASE_URL/,
      );
      expect(
        facadeEnv({ PAYWIRE_MODE: 'live', PUBLIC_BASE_URL: 'https://pay.example.com/' }).PUBLIC_BASE_URL,
      ).toBe('https://pay.example.com');
    });

    it('is optional in sandbox mode (links then use the listen address)', () => {
      expect(facadeEnv({}).PUBLIC_BASE_URL).toBeUndefined();
      expect(facadeEnv({ PUBLIC_BASE_URL: 'http://localhost:8080' }).PUBLIC_BASE_URL).toBe(
        'http://localhost:8080',
      );
    });

    it.each([
      'ftp://pay.example.com',
      'https://pay.example.com/?a=1',
      'https://user:pw@pay.example.com',
      'pay.example.com',
    ])('refuses %s', (value) => {
      expect(() => facadeEnv({ PUBLIC_BASE_URL: value })).toThrow(/PUBLIC_BASE_URL/);
    });
  });
});
