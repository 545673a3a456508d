import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumPath, ensureChromium } from '../support/chromium.ts';
import { startFacade, type TestFacade } from '../support/stack.ts';

// The API reference page (GET /services/2/docs) in headless Chromium: Swagger UI renders the OpenAPI
// document under the page's strict Content-Security-Policy, every request staying on our origin. The page
// needs no core, so the facade gets a core address nobody serves.

const artifacts = join(import.meta.dirname, '..', 'artifacts');
const httpMethods = ['get', 'put', 'post', 'delete', 'patch'];

let facade: TestFacade;
let browser: Browser;

beforeAll(async () => {
  await ensureChromium();
  facade = await startFacade('http://127.0.0.1:9/trpc', `pwc_1_${'x'.repeat(43)}`);
  browser = await chromium.launch({ executablePath: chromiumPath });
  mkdirSync(artifacts, { recursive: true });
}, 15 * 60_000);

afterAll(async () => {
  await browser?.close();
  await facade?.close();
});

// Over 50 operations to render (recurring billing added 17): on a loaded machine that outlasts vitest's 20 s.
// The bound is not a target: two suites running at once on 2 cores took it past 60 s.
it('renders every endpoint of the document, with no console error and no CSP violation', async () => {
  const origin = new URL(facade.baseUrl).origin;
  const document = (await (await fetch(`${facade.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const documented = Object.entries(document.paths)
    .flatMap(([path, item]) =>
      httpMethods.filter((method) => method in item).map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  const requests: string[] = [];
  await context.exposeBinding('reportCspViolation', (_, text: string) => problems.push(`CSP: ${text}`));
  // Browser code as text: the tests compile without the DOM library.
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) =>
      window.reportCspViolation(event.effectiveDirective + ' blocked ' + event.blockedURI + ' at ' + event.sourceFile + ':' + event.lineNumber));`,
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => requests.push(request.url()));

  const reply = await page.goto(`${facade.baseUrl}/docs`);
  expect(reply?.status()).toBe(200);
  const operations = page.locator('.opblock');
  await expect.poll(() => operations.count(), { timeout: 15_000 }).toBe(documented.length);

  const rendered = await operations.evaluateAll((blocks) =>
    blocks.map((block) => {
      const method = block.querySelector('.opblock-summary-method')?.textContent ?? '';
      const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
      return `${method.trim().toUpperCase()} ${path}`;
    }),
  );
  expect(rendered.sort()).toEqual(documented);
  await expect
    .poll(() => page.locator('.info .title').textContent(), { timeout: 15_000 })
    .toContain('Paywire');

  // One operation opened: parameters, the JSON and XML bodies, the error answers (Markdown descriptions
  // pass the page's Trusted Types policy).
  const sale = page.locator('#operations-Card_transactions-postTransactions');
  await sale.locator('.opblock-summary').click();
  await expect.poll(() => sale.locator('.opblock-body').isVisible(), { timeout: 15_000 }).toBe(true);
  const opened = (await sale.locator('.opblock-body').textContent()) ?? '';
  for (const text of ['Idempotency-Key', 'bluesnap-version', 'application/xml', '401', '422']) {
    expect(opened).toContain(text);
  }

  // The XML example Swagger UI builds from the document's xml names.
  await sale.locator('.body-param-content-type select').selectOption('application/xml');
  await expect
    .poll(() => sale.locator('.body-param__example').textContent(), { timeout: 15_000 })
    .toContain('<card-transaction');
  const example = (await sale.locator('.body-param__example').textContent()) ?? '';
  expect(example).toContain('<card-holder-info>');
  expect(example).toContain('<card-transaction-type>');

  // "Try it out" calls the API from the page, within its connect-src.
  const description = page.locator('#operations-API_description-getOpenapiJson');
  await description.locator('.opblock-summary').click();
  await description.locator('.try-out__btn').click();
  await description.locator('.execute').click();
  await expect
    .poll(() => description.locator('.live-responses-table .response .response-col_status').textContent(), {
      timeout: 15_000,
    })
    .toContain('200');

  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: join(artifacts, 'api-reference.png') });
  await page.screenshot({ path: join(artifacts, 'api-reference-full.png'), fullPage: true });
  expect(problems).toEqual([]);
  expect(requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
  expect(requests).toContain(`${origin}/services/2/openapi.json`);

  // The watch works: an inline style, which the page's policy refuses, is reported.
  await page.evaluate(
    "document.head.append(Object.assign(document.createElement('style'), { textContent: 'body { color: red }' }))",
  );
  await expect
    .poll(() => problems.some((problem) => problem.includes('style-src')), { timeout: 15_000 })
    .toBe(true);
  await context.close();
}, 180_000);
