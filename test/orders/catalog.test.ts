import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSampleCatalogue } from '../../infra/merchants.ts';
import { type CallOptions, client, type Reply } from '../support/http.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// The merchant's catalogue (ours): POST /catalog/products and GET /catalog/products/{id}, JSON and XML, over
// real HTTP against real PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

const NAMESPACE = 'http://ws.plimus.com';
const productShape = { root: 'product', wrapped: { skus: 'sku' } };
const asXml: CallOptions = { format: 'xml', shape: productShape };

let stack: Stack;
let api: ReturnType<typeof client>;
let db: pg.Pool;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  db = stack.db;
});

afterAll(async () => {
  await stack?.close();
});

const product = (overrides: Record<string, unknown> = {}) => ({
  productName: 'E-book bundle',
  skus: [
    { skuName: 'Single', price: { amount: 9.99, currency: 'EUR' } },
    { skuName: 'Family', price: { amount: '24.5', currency: 'EUR' } },
  ],
  ...overrides,
});

function expectOk(reply: Reply, status = 200): void {
  expect(reply.status, reply.text).toBe(status);
}

async function productRows(merchant: TestMerchant): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'select count(*)::int as n from catalog_product where merchant_id = $1',
    [merchant.id],
  );
  return rows[0]?.n ?? Number.NaN;
}

/** The single error of a failed call: its status, name, code and invalid property. */
function failure(reply: Reply) {
  const [message] = reply.body.message as Array<Record<string, unknown>>;
  return {
    status: reply.status,
    errorName: message?.errorName,
    code: Number(message?.code),
    property: (message?.invalidProperty as { name?: string } | undefined)?.name,
    description: message?.description,
    count: reply.body.message.length,
  };
}

/**
 * POST as the original's Extended API answers it: 201, no body, the product's URL in Location; the id is
 * its last segment.
 */
function expectCreated(reply: Reply): number {
  expect(reply.status, reply.text).toBe(201);
  expect(reply.text).toBe('');
  const location = reply.headers.get('location') ?? '';
  expect(location).toMatch(new RegExp(`^${stack.baseUrl}/catalog/products/\\d+$`));
  return Number(location.slice(location.lastIndexOf('/') + 1));
}

describe('create and read a product', () => {
  it('JSON: 201 with Location and no body; GET gives productId and a numeric skuId per sku', async () => {
    const created = await api.post('/catalog/products', product());
    const productId = expectCreated(created);
    const read = await api.get(`/catalog/products/${productId}`);
    expectOk(read);
    expect(read.headers.get('content-type')).toContain('application/json');
    const body = read.body;
    expect(body).toEqual({
      productId,
      productName: 'E-book bundle',
      skus: [
        { skuId: body.skus[0].skuId, skuName: 'Single', price: { amount: 9.99, currency: 'EUR' } },
        { skuId: body.skus[1].skuId, skuName: 'Family', price: { amount: 24.5, currency: 'EUR' } },
      ],
    });
    expect(Number.isInteger(body.skus[0].skuId) && Number.isInteger(body.skus[1].skuId)).toBe(true);
    expect(body.skus[1].skuId).toBeGreaterThan(body.skus[0].skuId);
    // The trailing slash and an empty query are the same route (see docs/conformance.md, Paths and versions).
    expect((await api.get(`/catalog/products/${productId}/?`)).text).toBe(read.text);
  });

  it('XML: 201 with Location; GET gives the documented document, amounts with their currency decimals', async () => {
    const request =
      `<?xml version="1.0" encoding="UTF-8"?><product xmlns="${NAMESPACE}"><product-name>Tea &amp; cakes` +
      '</product-name><skus><sku><sku-name>Cake</sku-name><price><amount>3.5</amount><currency>EUR</currency>' +
      '</price></sku><sku><sku-name>Matcha</sku-name><price><amount>1000</amount><currency>JPY</currency>' +
      '</price></sku><sku><sku-name>Dinar</sku-name><price><amount>1.5</amount><currency>BHD</currency>' +
      '</price></sku></skus></product>';
    const productId = expectCreated(await api.post('/catalog/products', request, asXml));
    const readXml = await api.get(`/catalog/products/${productId}`, { ...asXml, accept: 'application/xml' });
    expectOk(readXml);
    expect(readXml.headers.get('content-type')).toContain('application/xml');
    const [cake, matcha, dinar] = readXml.body.skus as Array<{ skuId: string }>;
    expect(readXml.text).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<product xmlns="${NAMESPACE}"><product-id>${productId}</product-id>` +
        '<product-name>Tea &amp; cakes</product-name><skus>' +
        `<sku><sku-id>${cake?.skuId}</sku-id><sku-name>Cake</sku-name><price><amount>3.50</amount>` +
        '<currency>EUR</currency></price></sku>' +
        `<sku><sku-id>${matcha?.skuId}</sku-id><sku-name>Matcha</sku-name><price><amount>1000</amount>` +
        '<currency>JPY</currency></price></sku>' +
        `<sku><sku-id>${dinar?.skuId}</sku-id><sku-name>Dinar</sku-name><price><amount>1.500</amount>` +
        '<currency>BHD</currency></price></sku></skus></product>',
    );
    // The same product in JSON.
    const readJson = await api.get(`/catalog/products/${productId}`);
    expect(readJson.body.skus.map((sku: { price: unknown }) => sku.price)).toEqual([
      { amount: 3.5, currency: 'EUR' },
      { amount: 1000, currency: 'JPY' },
      { amount: 1.5, currency: 'BHD' },
    ]);
  });
});

describe('validation', () => {
  const sku = (overrides: Record<string, unknown>) =>
    product({ skus: [{ skuName: 'A', price: { amount: '1.00', currency: 'EUR' }, ...overrides }] });

  it.each([
    ['no productName', product({ productName: undefined }), 'productName', 'VALIDATION_GENERAL_FAILURE'],
    ['an empty productName', product({ productName: '  ' }), 'productName', 'VALIDATION_GENERAL_FAILURE'],
    [
      'a productName of 101 characters',
      product({ productName: 'p'.repeat(101) }),
      'productName',
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'a productName that is not text',
      product({ productName: 42 }),
      'productName',
      'VALIDATION_GENERAL_FAILURE',
    ],
    ['no skus', product({ skus: undefined }), 'skus', 'VALIDATION_GENERAL_FAILURE'],
    ['an empty skus list', product({ skus: [] }), 'skus', 'VALIDATION_GENERAL_FAILURE'],
    [
      '51 skus',
      product({
        skus: Array.from({ length: 51 }, (_, i) => ({
          skuName: `s${i}`,
          price: { amount: 1, currency: 'EUR' },
        })),
      }),
      'skus',
      'VALIDATION_GENERAL_FAILURE',
    ],
    ['a sku without name', sku({ skuName: undefined }), 'skus.0.skuName', 'VALIDATION_GENERAL_FAILURE'],
    [
      'a sku name of 101 characters',
      sku({ skuName: 's'.repeat(101) }),
      'skus.0.skuName',
      'VALIDATION_GENERAL_FAILURE',
    ],
    ['a sku without price', sku({ price: undefined }), 'skus.0.price', 'VALIDATION_GENERAL_FAILURE'],
    [
      'a zero price',
      sku({ price: { amount: 0, currency: 'EUR' } }),
      'skus.0.price.amount',
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'a negative price',
      sku({ price: { amount: '-5', currency: 'EUR' } }),
      'skus.0.price.amount',
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'a price that is no number',
      sku({ price: { amount: 'ten', currency: 'EUR' } }),
      'skus.0.price.amount',
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'an unknown currency',
      sku({ price: { amount: 1, currency: 'EUX' } }),
      'skus.0.price.currency',
      'VALIDATION_GENERAL_FAILURE',
    ],
    ['no currency', sku({ price: { amount: 1 } }), 'skus.0.price.currency', 'VALIDATION_GENERAL_FAILURE'],
    [
      'three decimals in EUR',
      sku({ price: { amount: '1.005', currency: 'EUR' } }),
      'skus.0.price.amount',
      'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS',
    ],
    [
      'decimals in JPY',
      sku({ price: { amount: '100.5', currency: 'JPY' } }),
      'skus.0.price.amount',
      'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS',
    ],
    [
      'two skus of one name',
      product({
        skus: [
          { skuName: 'Same', price: { amount: 1, currency: 'EUR' } },
          { skuName: 'same', price: { amount: 2, currency: 'EUR' } },
        ],
      }),
      'skus.1.skuName',
      'VALIDATION_GENERAL_FAILURE',
    ],
  ])('%s: 400 naming the property, nothing stored', async (_case, body, property, errorName) => {
    const before = await productRows(stack.merchant);
    const reply = await api.post('/catalog/products', body);
    expect(failure(reply)).toMatchObject({ status: 400, errorName, property, count: 1 });
    expect(failure(reply).code).toBe(errorName === 'VALIDATION_GENERAL_FAILURE' ? 10001 : 14021);
    expect(await productRows(stack.merchant)).toBe(before);
  });

  it('reports every problem of one request at once', async () => {
    const reply = await api.post('/catalog/products', {
      productName: '',
      skus: [{ skuName: '', price: { amount: -1, currency: 'EUR' } }],
    });
    expect(reply.status).toBe(400);
    expect(
      reply.body.message.map((m: { invalidProperty: { name: string } }) => m.invalidProperty.name),
    ).toEqual(['productName', 'skus.0.skuName', 'skus.0.price.amount']);
  });

  it('XML errors come back as XML messages; a body that is not the product document is 400', async () => {
    const noName =
      `<product xmlns="${NAMESPACE}"><skus><sku><sku-name>A</sku-name><price><amount>1</amount>` +
      '<currency>EUR</currency></price></sku></skus></product>';
    const reply = await api.post('/catalog/products', noName, asXml);
    expect(reply.status).toBe(400);
    expect(reply.text).toContain(
      '<messages xmlns="http://ws.plimus.com"><message><error-name>VALIDATION_GENERAL_FAILURE</error-name>' +
        '<code>10001</code><description>productName: is required</description>',
    );
    const wrongRoot = await api.post('/catalog/products', `<catalog xmlns="${NAMESPACE}"/>`, asXml);
    expect(failure(wrongRoot)).toMatchObject({ status: 400, property: 'body' });
    const strayInWrapper = await api.post(
      '/catalog/products',
      `<product><product-name>P</product-name><skus><item>1</item></skus></product>`,
      asXml,
    );
    expect(failure(strayInWrapper)).toMatchObject({ status: 400, property: 'skus' });
    const notJson = await api.post('/catalog/products', undefined, { raw: '{"productName":' });
    expect(failure(notJson)).toMatchObject({ status: 400, property: 'body' });
  });

  it('GET: unknown ids 404, ids that are no number 400', async () => {
    expect(failure(await api.get('/catalog/products/999999999'))).toMatchObject({
      status: 404,
      errorName: 'RESOURCE_NOT_FOUND',
    });
    expect(failure(await api.get('/catalog/products/abc'))).toMatchObject({
      status: 400,
      property: 'productId',
    });
  });
});

describe('merchants', () => {
  it("another merchant's product is 404 and looks exactly like an unknown one", async () => {
    const mine = { productId: expectCreated(await api.post('/catalog/products', product())) };
    const other = await stack.newMerchant();
    const theirs = await api.get(`/catalog/products/${mine.productId}`, { merchant: other });
    expect(failure(theirs)).toMatchObject({ status: 404, errorName: 'RESOURCE_NOT_FOUND' });
    const unknown = await api.get('/catalog/products/999999998', { merchant: other });
    expect(theirs.text.replace(String(mine.productId), 'ID')).toBe(unknown.text.replace('999999998', 'ID'));
    // And the owner still reads it.
    expectOk(await api.get(`/catalog/products/${mine.productId}`));
  });

  it('needs credentials', async () => {
    expect((await api.post('/catalog/products', product(), { merchant: null })).status).toBe(401);
    expect((await api.get('/catalog/products/1000001', { merchant: null })).status).toBe(401);
  });
});

describe('Idempotency-Key', () => {
  it('a retry with the same key and body answers the first 201 and Location again and stores one product', async () => {
    const merchant = await stack.newMerchant();
    const key = randomUUID();
    const options: CallOptions = { merchant, headers: { 'idempotency-key': key } };
    const first = await api.post('/catalog/products', product(), options);
    const id = expectCreated(first);
    const again = await api.post('/catalog/products', product(), options);
    expect(expectCreated(again)).toBe(id);
    expect(again.headers.get('idempotency-key')).toBe(key);
    expect(await productRows(merchant)).toBe(1);

    // XML too, byte for byte.
    const xmlKey = randomUUID();
    const xml =
      `<product xmlns="${NAMESPACE}"><product-name>X</product-name><skus><sku><sku-name>A</sku-name>` +
      '<price><amount>1</amount><currency>EUR</currency></price></sku></skus></product>';
    const xmlOptions: CallOptions = { ...asXml, merchant, headers: { 'idempotency-key': xmlKey } };
    const firstXml = await api.post('/catalog/products', xml, xmlOptions);
    const againXml = await api.post('/catalog/products', xml, xmlOptions);
    expect(expectCreated(againXml)).toBe(expectCreated(firstXml));
    expect(await productRows(merchant)).toBe(2);

    // The key with another body is refused, and stores nothing.
    const changed = await api.post('/catalog/products', product({ productName: 'Other' }), options);
    expect(failure(changed)).toMatchObject({ status: 422, code: 60101 });
    expect(await productRows(merchant)).toBe(2);
    // Without a key, the same body makes a new product.
    expectCreated(await api.post('/catalog/products', product(), { merchant }));
    expect(await productRows(merchant)).toBe(3);
  });
});

describe("the sandbox merchant's sample product (npm start)", () => {
  it('is made once, however many starts (even concurrent) ensure it', async () => {
    const merchant = await stack.newMerchant();
    const first = await ensureSampleCatalogue(stack.databaseUrl, merchant.id);
    expect(first).toMatchObject({
      productName: 'Paywire Sample Product',
      skuName: 'Paywire Sample SKU',
      price: '10.00 EUR',
    });
    const [again, concurrent] = await Promise.all([
      ensureSampleCatalogue(stack.databaseUrl, merchant.id),
      ensureSampleCatalogue(stack.databaseUrl, merchant.id),
    ]);
    expect(again).toEqual(first);
    expect(concurrent).toEqual(first);
    expect(await productRows(merchant)).toBe(1);
    const { rows } = await db.query<{ id: string }>(
      'select id::text from catalog_product where merchant_id = $1',
      [merchant.id],
    );
    const read = await api.get(`/catalog/products/${rows[0]?.id}`, { merchant });
    expect(read.body.skus).toEqual([
      { skuId: first.skuId, skuName: 'Paywire Sample SKU', price: { amount: 10, currency: 'EUR' } },
    ]);
  });
});
