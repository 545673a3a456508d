import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.ts';
import { type Stack, startStack } from '../support/stack.ts';

// The hosted payment fields over plain HTTP: the form page, its assets and the merchant script. What the
// page does in a browser is in hosted-fields.browser.test.ts.

let stack: Stack;
let api: ReturnType<typeof client>;
let origin: string; // the facade's, e.g. http://127.0.0.1:41234

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  origin = new URL(stack.baseUrl).origin;
});
afterAll(() => stack?.close());

async function newToken(): Promise<string> {
  const reply = await api.post('/payment-fields-tokens');
  expect(reply.status, reply.text).toBe(201);
  return reply.headers.get('location')?.split('/').at(-1) ?? '';
}

/** A GET as a browser makes it: no credentials. */
const browserGet = (path: string) =>
  fetch(`${stack.baseUrl}${path}`, { headers: { accept: 'text/html,*/*' } });

function directives(response: Response): Map<string, string> {
  const policy = response.headers.get('content-security-policy') ?? '';
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name = '', ...values]) => [name, values.join(' ')]),
  );
}

function expectStrictPage(response: Response, frameAncestors: string): void {
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  const csp = directives(response);
  expect(Object.fromEntries(csp)).toMatchObject({
    'default-src': "'none'",
    'script-src': "'self'",
    'style-src': "'self'",
    'connect-src': "'self'",
    'form-action': "'none'",
    'base-uri': "'none'",
    'frame-ancestors': frameAncestors,
  });
  for (const value of csp.values()) expect(value).not.toMatch(/unsafe|\*|data:/);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  expect(response.headers.get('cache-control')).toBe('no-store');
}

/** Scripts and styles only from files: no inline script, no style element, no style attribute, no handlers. */
function expectNoInlineCode(html: string): void {
  for (const tag of html.match(/<script\b[^>]*>/g) ?? [])
    expect(tag).toMatch(/\ssrc="\/services\/2\/hosted-fields\//);
  expect(html).not.toMatch(/<script\b[^>]*>[^<]+<\/script>/);
  expect(html).not.toMatch(/<style\b/i);
  expect(html).not.toMatch(/\sstyle=/i);
  expect(html).not.toMatch(/\son[a-z]+=/i);
}

describe('GET /payment-fields-tokens/{token}/form', () => {
  it('is the card form, without credentials, under a strict CSP that no one may frame by default', async () => {
    const token = await newToken();
    const response = await browserGet(`/payment-fields-tokens/${token}/form`);
    const html = await response.text();
    expect(response.status, html).toBe(200);
    expectStrictPage(response, "'none'");
    for (const id of ['cc-number', 'cc-exp', 'cc-cvv']) expect(html).toContain(`id="${id}"`);
    expect(html).toContain('autocomplete="cc-number"');
    expectNoInlineCode(html);
  });

  it('lets the origin given in ?origin= frame it, and only that origin', async () => {
    const token = await newToken();
    const merchant = 'https://shop.example:8443';
    const response = await browserGet(
      `/payment-fields-tokens/${token}/form?origin=${encodeURIComponent(merchant)}`,
    );
    expect(response.status).toBe(200);
    expectStrictPage(response, merchant);
  });

  it('keeps the token to the first origin that framed it: another site gets the 404 page', async () => {
    const token = await newToken();
    const framedBy = (site: string) =>
      browserGet(`/payment-fields-tokens/${token}/form?origin=${encodeURIComponent(site)}`);
    expect((await framedBy('https://shop.example')).status).toBe(200);
    const elsewhere = await framedBy('https://evil.example');
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.text()).toContain('This payment form is not available');
    expect((await framedBy('https://shop.example')).status).toBe(200); // a reload of the checkout
  });

  it('holds no secret: not the token, no credentials, no card field names a plain form could submit', async () => {
    const token = await newToken();
    const response = await browserGet(`/payment-fields-tokens/${token}/form`);
    const html = await response.text();
    expect(html).not.toContain(token);
    expect(html).not.toContain(stack.merchant.username);
    expect(html).not.toContain(stack.merchant.password);
    expect(html).not.toMatch(/authorization|basic /i);
    expect(html).not.toMatch(/<input[^>]*\sname=/); // nothing for a native submission to carry
    expect(html).not.toMatch(/\saction=/);
  });

  it('keeps the token out of the request log, for the page and for the binding', async () => {
    const token = await newToken();
    expect((await browserGet(`/payment-fields-tokens/${token}/form`)).status).toBe(200);
    const bind = await api.put(
      `/payment-fields-tokens/${token}`,
      { ccNumber: '4263982640269299', cvv: '837', expDate: '12/2099' },
      { merchant: null },
    );
    expect(bind.status, bind.text).toBe(200);
    const lines = stack.logs.filter((line) => line.includes('/payment-fields-tokens/[token]'));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(stack.logs.join('\n')).not.toContain(token);
  });

  it('answers with a trailing slash too, and ignores a JSON Content-Type on the bodiless GET', async () => {
    const token = await newToken();
    const response = await fetch(`${stack.baseUrl}/payment-fields-tokens/${token}/form/`, {
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it.each([
    ['a short one', 'nope'],
    ['one with characters a token never has', 'abc.def~ghi!jklmnopqrstuvwxyz0123'],
    ['one longer than any token', 'a'.repeat(65)],
  ])('shows a clear 404 page, not a stack trace, for %s', async (_, token) => {
    const response = await browserGet(`/payment-fields-tokens/${encodeURIComponent(token)}/form`);
    const html = await response.text();
    expect(response.status).toBe(404);
    expectStrictPage(response, "'none'");
    expect(html).toContain('This payment form is not available');
    expect(html).toContain('data-error="TOKEN_UNUSABLE"');
    expect(html).not.toMatch(/Error:|at .*\.ts|stack/i);
    expectNoInlineCode(html);
  });

  it('a 404 page may still be framed by the given origin, so the shopper reads why', async () => {
    const response = await browserGet(
      `/payment-fields-tokens/nope/form?origin=${encodeURIComponent(origin)}`,
    );
    expect(response.status).toBe(404);
    expect(directives(response).get('frame-ancestors')).toBe(origin);
  });

  it.each([
    ['a path', 'https://shop.example/checkout'],
    ['another scheme', 'javascript:alert(1)'],
    ['a CSP injection', "https://shop.example; script-src 'unsafe-inline'"],
    ['a wildcard', '*'],
    ['an empty value', ''],
  ])('refuses an ?origin= with %s: 400 page that nobody may frame', async (_, value) => {
    const token = await newToken();
    const response = await browserGet(
      `/payment-fields-tokens/${token}/form?origin=${encodeURIComponent(value)}`,
    );
    const html = await response.text();
    expect(response.status).toBe(400);
    expectStrictPage(response, "'none'");
    expect(html).toContain('cannot be shown here');
  });

  it.each([
    ['unknown', async () => 'A'.repeat(32)],
    [
      'spent',
      async () => {
        const token = await newToken();
        const bound = await api.put(
          `/payment-fields-tokens/${token}`,
          { ccNumber: '4263982640269299', cvv: '837', expDate: '12/2099' },
          { merchant: null },
        );
        expect(bound.status, bound.text).toBe(200);
        const sale = await api.post('/transactions', {
          cardTransactionType: 'AUTH_CAPTURE',
          amount: 5,
          currency: 'USD',
          pfToken: token,
        });
        expect(sale.status, sale.text).toBe(200);
        return token;
      },
    ],
  ])('shows no form for an %s token: the 404 page, and binding to it is refused', async (_, tokenOf) => {
    const token = await tokenOf();
    const page = await browserGet(`/payment-fields-tokens/${token}/form`);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('This payment form is not available');
    const bind = await api.put(
      `/payment-fields-tokens/${token}`,
      { ccNumber: '4263982640269299', cvv: '837', expDate: '12/2099' },
      { merchant: null },
    );
    expect(bind.status, bind.text).toBe(400);
    expect(bind.body.message[0]).toMatchObject({ errorName: 'INVALID_PAYMENT_DETAILS', code: 20012 });
  });

  it('shows no form once the token has expired by the merchant’s clock', async () => {
    const token = await newToken();
    expect((await browserGet(`/payment-fields-tokens/${token}/form`)).status).toBe(200);
    const advanced = await api.put('/sandbox/clock', { advanceBy: 'PT61M' });
    expect(advanced.status, advanced.text).toBe(200);
    expect((await browserGet(`/payment-fields-tokens/${token}/form`)).status).toBe(404);
  });
});

describe('the files the page and merchants load', () => {
  it('serves the merchant script as JavaScript to any origin, with no credentials', async () => {
    const response = await fetch(`${stack.baseUrl}/hosted-fields/paywire-fields.js`);
    const script = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(script).toContain('window.PaywireFields');
  });

  it('serves every file form.html and form.js refer to, with its type, same-origin only', async () => {
    const html = await (await browserGet(`/payment-fields-tokens/${await newToken()}/form`)).text();
    const form = await (await fetch(`${stack.baseUrl}/hosted-fields/form.js`)).text();
    const referenced = [
      ...[...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? ''),
      ...[...form.matchAll(/from '\.\/([^']+)'/g)].map((m) => `/services/2/hosted-fields/${m[1]}`),
    ];
    expect(referenced.sort()).toEqual([
      '/services/2/hosted-fields/card-rules.js',
      '/services/2/hosted-fields/form.css',
      '/services/2/hosted-fields/form.js',
    ]);
    for (const path of referenced) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe(
        path.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
      );
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    }
  });

  it('answers an unknown file with 404 in the error shape, not 401', async () => {
    for (const file of ['nope.js', 'form.html', 'generate-card-rules.ts', '..%2Froutes%2Fhosted-fields.ts']) {
      const reply = await api.get(`/hosted-fields/${file}`, { merchant: null });
      expect(reply.status, file).toBe(404);
      expect(reply.body.message[0]).toMatchObject({ errorName: 'RESOURCE_NOT_FOUND', code: 10404 });
    }
  });
});

describe('PUT /payment-fields-tokens/{token}, as form.js sends it', () => {
  it('binds the card without credentials and answers brand and last four', async () => {
    const token = await newToken();
    const reply = await api.put(
      `/payment-fields-tokens/${token}`,
      { ccNumber: '374245455400126', cvv: '1234', expDate: '05/2099' },
      { merchant: null },
    );
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ ccType: 'AMEX', last4Digits: '0126' });
  });

  it('still answers problems in the error shape, naming the field, never echoing the card', async () => {
    const token = await newToken();
    const reply = await api.put(
      `/payment-fields-tokens/${token}`,
      { ccNumber: '4263982640269298', cvv: '83', expDate: '13/2030' },
      { merchant: null },
    );
    expect(reply.status).toBe(400);
    const names = reply.body.message.map(
      (m: { invalidProperty?: { name: string } }) => m.invalidProperty?.name,
    );
    expect(names.sort()).toEqual(['ccNumber', 'cvv', 'expDate']);
    expect(reply.text).not.toContain('4263982640269298');
    const plain = await api.put(`/payment-fields-tokens/${token}`, undefined, {
      merchant: null,
      raw: 'ccNumber=4263982640269299',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(plain.status).toBe(415);
    expect(plain.body.message[0]).toMatchObject({ errorName: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(stack.logs.join('\n')).not.toContain('4263982640269');
  });
});
