import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Frame,
  type FrameLocator,
  type Page,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSampleCheckout } from '../../infra/sample-checkout.ts';
import { chromiumPath, ensureChromium } from '../support/chromium.ts';
import { client } from '../support/http.ts';
import { type Stack, startStack } from '../support/stack.ts';

// The hosted payment fields in a real browser (headless Chromium): a shopper on the sample merchant's
// checkout types a card into Paywire's iframe, the merchant's server sells with the token.

const artifacts = join(import.meta.dirname, '..', 'artifacts');

let stack: Stack;
let api: ReturnType<typeof client>;
let browser: Browser;
let shop: ReturnType<typeof createSampleCheckout>;
let shopUrl: string;

beforeAll(async () => {
  await ensureChromium();
  stack = await startStack();
  api = client(stack);
  shop = createSampleCheckout({
    paywireUrl: stack.baseUrl,
    username: stack.merchant.username,
    password: stack.merchant.password,
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: chromiumPath });
  mkdirSync(artifacts, { recursive: true });
}, 15 * 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (shop ? shop.close(resolve) : resolve(undefined)));
  await stack?.close();
});

/** What a test's browser did: CSP violations (console and events, every frame), requests and PUTs. */
interface Session {
  context: BrowserContext;
  page: Page;
  violations: string[];
  requests: { method: string; url: string; body: string | null }[];
}

const sessions: Session[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.context.close();
});

async function openBrowser(): Promise<Session> {
  const context = await browser.newContext();
  const violations: string[] = [];
  await context.exposeBinding('reportCspViolation', (_, text: string) => violations.push(text));
  // Browser code as text: the tests compile without the DOM library.
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) =>
      window.reportCspViolation(event.effectiveDirective + ' blocked ' + event.blockedURI + ' in ' + event.documentURI));`,
  });
  const page = await context.newPage();
  const requests: Session['requests'] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  page.on('request', (request) =>
    requests.push({ method: request.method(), url: request.url(), body: request.postData() }),
  );
  const session = { context, page, violations, requests };
  sessions.push(session);
  return session;
}

/** The sample shop's checkout, with the hosted fields ready in it. */
async function openCheckout(
  session: Session,
): Promise<{ fields: FrameLocator; token: string; frame: Frame }> {
  const { page } = session;
  const formResponse = page.waitForResponse((response) =>
    /\/payment-fields-tokens\/[^/]+\/form/.test(response.url()),
  );
  await page.goto(shopUrl);
  const response = await formResponse;
  expect(response.status()).toBe(200);
  // The page carries its policy, and it lets exactly the shop frame it.
  const policy = (await response.allHeaders())['content-security-policy'] ?? '';
  expect(policy).toContain("default-src 'none'");
  expect(policy).toContain("script-src 'self'");
  expect(policy).toContain(`frame-ancestors ${shopUrl}`);
  const token = (await page.locator('#card-fields').getAttribute('data-token')) ?? '';
  const fields = page.frameLocator('iframe.paywire-fields');
  await expect.poll(() => page.locator('#pay').isEnabled()).toBe(true); // the fields said they are ready
  const frame = page.frames().find((candidate) => candidate.url().includes('/form')) as Frame;
  return { fields, token, frame };
}

/** A year the merchant's clock has not reached. */
async function futureYear(): Promise<string> {
  const clock = await api.get('/sandbox/clock');
  expect(clock.status, clock.text).toBe(200);
  return String(new Date(clock.body.now).getUTCFullYear() + 4);
}

async function typeCard(fields: FrameLocator, number: string, expiry: string, cvv: string): Promise<void> {
  await fields.locator('#cc-number').pressSequentially(number);
  await fields.locator('#cc-exp').pressSequentially(expiry);
  await fields.locator('#cc-cvv').pressSequentially(cvv);
}

const saleWith = (token: string) =>
  api.post('/transactions', {
    cardTransactionType: 'AUTH_CAPTURE',
    pfToken: token,
    amount: 10,
    currency: 'USD',
  });

const cardTexts = (session: Session) => session.requests.map((r) => `${r.url} ${r.body ?? ''}`);

describe('hosted payment fields in Chromium, on the sample checkout', () => {
  it('takes a VISA card and the merchant sells with the token', async () => {
    const session = await openBrowser();
    const { page } = session;
    const { fields, token } = await openCheckout(session);
    const year = await futureYear();

    await typeCard(fields, '4263982640269299', `12${year}`, '837');
    await expect.poll(() => fields.locator('#brand').getAttribute('data-brand')).toBe('VISA');
    expect(await fields.locator('#brand').textContent()).toBe('Visa');
    expect(await fields.locator('#cc-number').inputValue()).toBe('4263 9826 4026 9299');
    expect(await fields.locator('#cc-exp').inputValue()).toBe(`12 / ${year}`);
    expect(await page.locator('#brand-line').textContent()).toBe('Card brand: VISA'); // via postMessage

    await page.locator('#pay').click();
    await page.locator('#result').waitFor({ state: 'visible' });
    const transactionId = (await page.locator('#transaction-id').textContent()) ?? '';
    expect(await page.locator('#card').textContent()).toBe('VISA •••• 9299');
    expect(await page.locator('#amount').textContent()).toBe('25.00 USD');
    expect(await fields.locator('#saved').textContent()).toBe('Visa ending in 9299 saved.');
    await page.screenshot({ path: join(artifacts, 'hosted-fields-success.png'), fullPage: true });

    // The transaction, read back with the merchant's credentials.
    const sale = await api.get(`/transactions/${transactionId}`);
    expect(sale.status, sale.text).toBe(200);
    expect(sale.body).toMatchObject({
      transactionId,
      amount: 25,
      currency: 'USD',
      cardTransactionType: 'AUTH_CAPTURE',
      creditCard: { cardLastFourDigits: '9299', cardType: 'VISA' },
      processingInfo: { processingStatus: 'success' },
    });
    // The token is spent.
    expect((await saleWith(token)).body.message[0]).toMatchObject({ errorName: 'INVALID_PAYMENT_DETAILS' });

    // The card went out once, in the body of the same-origin PUT, and nowhere else: no URL, no other
    // request, no log line.
    const puts = session.requests.filter((r) => r.method === 'PUT');
    expect(puts.map((r) => r.url)).toEqual([`${stack.baseUrl}/payment-fields-tokens/${token}`]);
    expect(JSON.parse(puts[0]?.body ?? '{}')).toEqual({
      ccNumber: '4263982640269299',
      cvv: '837',
      expDate: `12/${year}`,
    });
    expect(cardTexts(session).filter((text) => text.includes('4263982640269299'))).toHaveLength(1);
    expect(session.requests.some((r) => r.url.includes('4263'))).toBe(false);
    expect(stack.logs.join('\n')).not.toContain('4263982640269299');
    expect(session.violations).toEqual([]);
  });

  it('refuses a number that fails Luhn inline, binds nothing, and recovers when it is corrected', async () => {
    const session = await openBrowser();
    const { page } = session;
    const { fields, token } = await openCheckout(session);
    const year = await futureYear();

    await fields.locator('#cc-number').pressSequentially('4263982640269298');
    // Live: the number is complete, so the shopper hears at once that it is wrong.
    await expect.poll(() => fields.locator('#cc-number-error').textContent()).toContain('not valid');
    expect(await fields.locator('#cc-number').getAttribute('aria-invalid')).toBe('true');
    await fields.locator('#cc-exp').pressSequentially(`01${year}`);
    await fields.locator('#cc-cvv').pressSequentially('837');
    await page.locator('#pay').click();
    await expect.poll(() => page.locator('#message').textContent()).toBe('Please check the card details.');
    expect(await fields.locator('#cc-number-error').textContent()).toBe(
      'This card number is not valid. Check it and try again.',
    );
    expect(await page.locator('#result').isHidden()).toBe(true);

    // Nothing was sent, so nothing is bound: the token cannot pay.
    expect(session.requests.filter((r) => r.method === 'PUT')).toEqual([]);
    expect(cardTexts(session).some((text) => text.includes('4263982640269298'))).toBe(false);
    const sale = await saleWith(token);
    expect(sale.status).toBe(400);
    expect(sale.body.message[0]).toMatchObject({ errorName: 'INVALID_PAYMENT_DETAILS', code: 20012 });

    // Corrected (last digit), the error goes as the shopper types.
    await fields.locator('#cc-number').press('Backspace');
    await fields.locator('#cc-number').press('9');
    await expect.poll(() => fields.locator('#cc-number-error').textContent()).toBe('');
    expect(session.violations).toEqual([]);
  });

  it('detects the brand while typing: AMEX wants four CVV digits', async () => {
    const session = await openBrowser();
    const { page } = session;
    const { fields } = await openCheckout(session);
    const year = await futureYear();
    const brand = fields.locator('#brand');
    const cvv = fields.locator('#cc-cvv');

    await fields.locator('#cc-number').pressSequentially('4');
    await expect.poll(() => brand.getAttribute('data-brand')).toBe('VISA');
    expect(await cvv.getAttribute('maxlength')).toBe('3');
    await fields.locator('#cc-number').fill('');
    await fields.locator('#cc-number').pressSequentially('3');
    await expect.poll(() => brand.getAttribute('data-brand')).toBe(''); // 3 alone is no brand yet
    await fields.locator('#cc-number').pressSequentially('7');
    await expect.poll(() => brand.getAttribute('data-brand')).toBe('AMEX');
    expect(await brand.textContent()).toBe('American Express');
    expect(await cvv.getAttribute('maxlength')).toBe('4');
    expect(await cvv.getAttribute('placeholder')).toBe('4 digits');
    await expect.poll(() => page.locator('#brand-line').textContent()).toBe('Card brand: AMEX');

    await fields.locator('#cc-number').pressSequentially('4245455400126');
    expect(await fields.locator('#cc-number').inputValue()).toBe('3742 454554 00126');
    await fields.locator('#cc-exp').pressSequentially(`05${year}`);
    await cvv.pressSequentially('123');
    await page.locator('#pay').click();
    await expect
      .poll(() => fields.locator('#cc-cvv-error').textContent())
      .toBe('The security code is 4 digits.');
    await page.screenshot({ path: join(artifacts, 'hosted-fields-amex-cvv-error.png'), fullPage: true });
    expect(session.requests.filter((r) => r.method === 'PUT')).toEqual([]);

    await cvv.pressSequentially('4');
    await expect.poll(() => fields.locator('#cc-cvv-error').textContent()).toBe('');
    await page.locator('#pay').click();
    await page.locator('#result').waitFor({ state: 'visible' });
    expect(await page.locator('#card').textContent()).toBe('AMEX •••• 0126');
    expect(session.violations).toEqual([]);
  });

  it('the page is bound by its CSP: an inline style in the hosted fields is refused and reported', async () => {
    // The control for the violation checks above: they would see a violation if there were one.
    const session = await openBrowser();
    const { frame } = await openCheckout(session);
    expect(session.violations).toEqual([]);
    await frame.evaluate(`{
      const style = document.createElement('style');
      style.textContent = 'body { background: red; }';
      document.head.append(style);
    }`);
    await expect.poll(() => session.violations.length).toBeGreaterThan(0);
    expect(session.violations.join('\n')).toMatch(/style-src/);
  });

  it('tells the shopper and the merchant when the checkout has expired', async () => {
    const session = await openBrowser();
    const { page } = session;
    const { fields } = await openCheckout(session);
    const year = await futureYear();
    // Tokens live 60 minutes by the merchant's clock.
    const advanced = await api.put('/sandbox/clock', { advanceBy: 'PT61M' });
    expect(advanced.status, advanced.text).toBe(200);

    await typeCard(fields, '4263982640269299', `12${year}`, '837');
    await page.locator('#pay').click();
    await fields.locator('#unavailable').waitFor({ state: 'visible' });
    expect(await fields.locator('#unavailable h1').textContent()).toBe(
      'This payment form is no longer available',
    );
    expect(await fields.locator('#card-form').isHidden()).toBe(true);
    await expect
      .poll(() => page.locator('#message').textContent())
      .toBe('This checkout has expired. Start a new order.');
    expect(session.violations).toEqual([]);
  });

  it('shows a malformed token link as a clear 404 page', async () => {
    const session = await openBrowser();
    const { page } = session;
    const response = await page.goto(`${stack.baseUrl}/payment-fields-tokens/not-a-token/form`);
    expect(response?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('This payment form is not available');
    expect(await page.title()).toBe('This payment form is not available');
    expect(session.violations).toEqual([]);
  });
});
