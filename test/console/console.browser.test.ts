import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, ensureChromium } from '../support/chromium.ts';
import { as, client, expectStatus, saleBody } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// The merchant console in a real browser (Debian's Chromium through playwright-core): a merchant signs in,
// searches, refunds, redelivers an IPN and downloads a report; every page passes axe with no serious or
// critical violation and no Content-Security-Policy violation, and is photographed at desktop and phone
// widths into test/artifacts/.

const artifacts = join(import.meta.dirname, '..', 'artifacts');
/** Each step photographs and checks pages at two widths, on a machine other tests share. */
const walkTimeout = 180_000;
/** How long a polled expectation waits for the page (expect.poll's own default is a second). */
const patience = { timeout: 30_000 };
const widths = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

let stack: Stack;
let receiver: IpnReceiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let merchant: TestMerchant;
let origin: string;
let sale: string;
/** A dispute the sandbox's dispute test card opened at once. */
let chargeback: string;
let hook: string;
const violations: string[] = [];

beforeAll(async () => {
  await ensureChromium();
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  origin = new URL(stack.baseUrl).origin;
  merchant = await stack.newMerchant();
  const api = client(stack);
  hook = receiver.newHook();
  expectStatus(
    await api.post(
      '/notification-config',
      hookConfig(hook, ['sendCharge', 'sendRefund', 'sendDecline']),
      as(merchant),
    ),
    200,
  );
  sale = String(
    expectStatus(
      await api.post('/transactions', saleBody({ merchantTransactionId: 'console-order-1' }), as(merchant)),
      200,
    ).body.transactionId,
  );
  expectStatus(await api.post('/transactions', saleBody({ amount: 42, currency: 'EUR' }), as(merchant)), 200);
  expectStatus(
    await api.post('/transactions', saleBody({ cardTransactionType: 'AUTH_ONLY', amount: 9 }), as(merchant)),
    200,
  );
  const disputed = saleBody({
    amount: 15,
    creditCard: { ...saleBody().creditCard, cardNumber: '4000000000000259' },
  });
  const disputedSale = expectStatus(await api.post('/transactions', disputed, as(merchant)), 200).body
    .transactionId;
  const { rows: disputes } = await stack.db.query<{ id: string }>(
    'select id::text from chargeback where transaction_id = $1',
    [disputedSale],
  );
  chargeback = disputes[0]?.id ?? '';
  const declined = saleBody({ amount: 10.51 });
  expectStatus(await api.post('/transactions', declined, as(merchant)), 400);
  await waitFor('the sale IPN delivered', () => receiver.at(hook).length >= 1);

  browser = await chromium.launch({ executablePath: chromiumPath });
  context = await browser.newContext({ acceptDownloads: true, viewport: widths.desktop });
  await context.exposeBinding('reportCspViolation', (_, text: string) => violations.push(text));
  // Browser code as text: the tests compile without the DOM library.
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) =>
      window.reportCspViolation(event.effectiveDirective + ' blocked ' + event.blockedURI + ' in ' + event.documentURI));`,
  });
  page = await context.newPage();
  page.on('console', (message) => {
    // The page's own errors and any policy refusal; a 4xx answer the page expects (401 before sign-in, a wrong
    // password) is also logged as an error by Chromium, and is not one.
    const text = message.text();
    if (/Content Security Policy|Refused to|TrustedHTML/i.test(text)) violations.push(text);
    else if (message.type() === 'error' && !text.startsWith('Failed to load resource')) violations.push(text);
  });
  page.on('pageerror', (error) => violations.push(String(error)));
  mkdirSync(artifacts, { recursive: true });
}, 15 * 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.close();
  await receiver?.close();
});

/** No serious or critical axe violation, and the page at both widths in test/artifacts/console-<name>-*.png. */
async function checkPage(name: string): Promise<void> {
  for (const [width, size] of Object.entries(widths)) {
    await page.setViewportSize(size);
    // preload off: axe would otherwise copy the stylesheets into <style> elements, which the page's policy refuses.
    const { violations: found } = await new AxeBuilder({ page }).options({ preload: false }).analyze();
    const grave = found.filter(
      (violation) => violation.impact === 'serious' || violation.impact === 'critical',
    );
    expect(
      grave.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.html).join(', ')}`),
      `${name} at ${width}`,
    ).toEqual([]);
    await page.screenshot({ path: join(artifacts, `console-${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(widths.desktop);
  expect(violations).toEqual([]);
}

/** The smallest PNG: its signature and a 1x1 IHDR chunk, which is what the evidence check reads. */
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const heading = (text: string) => page.getByRole('heading', { level: 1, name: text });

describe('the merchant console in Chromium', () => {
  it(
    'signs in after a wrong password',
    async () => {
      await page.goto(`${origin}/console`);
      await page.getByLabel('Username').waitFor();
      await checkPage('sign-in');
      await page.getByLabel('Username').fill(merchant.username);
      await page.getByLabel('Password').fill('not the password at all');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent(), patience)
        .toBe('Wrong username or password.');
      await page.getByLabel('Password').fill(merchant.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await heading('Dashboard').waitFor();
      await page.locator('.chart canvas').first().waitFor();
      expect(await page.getByText('INSUFFICIENT_FUNDS: 1').count()).toBe(1); // the declined sale's reason
      await checkPage('dashboard');
    },
    walkTimeout,
  );

  it(
    'searches transactions and refunds one',
    async () => {
      await page.getByRole('link', { name: 'Transactions' }).click();
      await heading('Transactions').waitFor();
      await page.getByLabel('Merchant transaction id').fill('console-order-1');
      await page.getByRole('button', { name: 'Search' }).click();
      await expect.poll(() => page.locator('caption').textContent(), patience).toBe('1 transaction');
      expect(page.url()).toContain('merchantTransactionId=console-order-1');
      await checkPage('transactions');

      await page.getByRole('link', { name: sale, exact: true }).click();
      await heading(`Transaction ${sale}`).waitFor();
      await checkPage('transaction');
      await page.getByLabel(/^Amount/).fill('5');
      await page.getByLabel('Reason').fill('damaged in transit');
      await page.getByRole('button', { name: 'Refund' }).click();
      await expect
        .poll(() => page.getByRole('status').textContent(), patience)
        .toMatch(/^Refunded: refund \d+\.$/);
      const { rows } = await stack.db.query<{ refunded_minor: string; reason: string }>(
        'select t.refunded_minor, r.reason from card_transaction t join refund r on r.transaction_id = t.id where t.id = $1',
        [sale],
      );
      expect(rows).toEqual([{ refunded_minor: '500', reason: 'damaged in transit' }]);
      await expect.poll(() => page.locator('dd').nth(3).textContent(), patience).toBe('$5.00'); // Refunded
    },
    walkTimeout,
  );

  it(
    'redelivers an IPN from the delivery log',
    async () => {
      await page.getByRole('link', { name: 'IPN deliveries' }).click();
      await heading('IPN deliveries').waitFor();
      await page.locator('tbody tr').first().waitFor();
      await checkPage('ipn-deliveries');
      const { rows } = await stack.db.query<{ id: string; attempts: number }>(
        `select id, attempts from ipn_delivery where merchant_id = $1 and event = 'Charge' and state = 'delivered' order by id limit 1`,
        [merchant.id],
      );
      const delivery = rows[0];
      if (!delivery) throw new Error('no delivered Charge IPN');
      const before = receiver.at(hook).length;
      await page.getByRole('button', { name: `Redeliver ${delivery.id}` }).click();
      await expect
        .poll(() => page.getByRole('status').textContent(), patience)
        .toBe(`Delivery ${delivery.id} is due again now.`);
      await waitFor('the redelivered IPN', () => receiver.at(hook).length > before);
    },
    walkTimeout,
  );

  it(
    'downloads a report as CSV',
    async () => {
      await page.getByRole('link', { name: 'Reports' }).click();
      await heading('Reports').waitFor();
      await checkPage('reports');
      const download = page.waitForEvent('download');
      await page.getByRole('link', { name: 'Transaction detail (CSV)' }).click();
      const file = await download;
      expect(file.suggestedFilename()).toBe('TransactionDetail.csv');
      const csv = readFileSync(await file.path(), 'utf8');
      expect(csv.split('\r\n')[0]).toContain('Invoice ID');
      expect(csv).toContain(sale);
      expect(csv).not.toContain('4263982640269299');
    },
    walkTimeout,
  );

  it(
    'shows subscriptions, chargebacks and IPN settings',
    async () => {
      for (const [link, title, name] of [
        ['Subscriptions', 'Subscriptions', 'subscriptions'],
        ['Chargebacks', 'Chargebacks', 'chargebacks'],
        ['IPN settings', 'IPN settings', 'ipn-settings'],
      ] as const) {
        await page.getByRole('link', { name: link, exact: true }).click();
        await heading(title).waitFor();
        await page.getByRole('status').waitFor({ state: 'detached' }); // loaded
        await checkPage(name);
      }
      expect(await page.getByLabel('URL').inputValue()).toMatch(/^http:\/\/127\.0\.0\.1/);
    },
    walkTimeout,
  );

  it(
    'files evidence for a chargeback, after refusing a file that is not evidence',
    async () => {
      await page.getByRole('link', { name: 'Chargebacks', exact: true }).click();
      await heading('Chargebacks').waitFor();
      const evidence = page.getByLabel(`Evidence for chargeback ${chargeback}`, { exact: true });
      const upload = page.getByRole('button', { name: `Upload evidence for chargeback ${chargeback}` });
      // named and typed as a PDF, but its content is text: refused, and nothing is kept
      await evidence.setInputFiles({
        name: 'receipt.pdf',
        mimeType: 'application/pdf',
        buffer: Buffer.from('not a PDF at all'),
      });
      await upload.click();
      await expect
        .poll(() => page.getByRole('alert').textContent(), patience)
        .toBe('representment_file: must be a PDF, TIFF, PNG or JPEG file');
      // a PNG by its content (the signature and an IHDR chunk), whatever its name says
      await evidence.setInputFiles({ name: 'receipt', mimeType: 'application/octet-stream', buffer: png });
      await upload.click();
      await expect
        .poll(() => page.getByRole('status').textContent(), patience)
        .toBe(`Evidence filed for chargeback ${chargeback}: MERCHANT_RESPONDED.`);
      const { rows } = await stack.db.query<{ status: string; files: string[] }>(
        `select c.status, array(select media_type from chargeback_evidence e where e.chargeback_id = c.id) as files
           from chargeback c where c.id = $1`,
        [chargeback],
      );
      expect(rows).toEqual([{ status: 'MERCHANT_RESPONDED', files: ['image/png'] }]);
      const row = page
        .locator('tbody tr')
        .filter({ has: page.getByRole('cell', { name: chargeback, exact: true }) });
      await expect.poll(() => row.textContent(), patience).toContain('MERCHANT_RESPONDED');
      expect(await row.textContent()).toContain('1 file(s)');
      await checkPage('chargeback-evidence');
    },
    walkTimeout,
  );

  it(
    'signs out, and the session is gone',
    async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Username').waitFor();
      const answer = await page.evaluate(async () => (await fetch('/console/api/session')).status);
      expect(answer).toBe(401);
      expect(violations).toEqual([]);
    },
    walkTimeout,
  );
});
