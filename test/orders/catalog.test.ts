import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSampleCatalogue } from '../../infra/merchants.ts';
import { skuRequest } from '../support/catalog.ts';
import { type CallOptions, client, failure, type Reply } from '../support/http.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// The merchant's catalogue as the Extended API has it: products and skus (create, retrieve, update), JSON and
// XML, over real HTTP against real PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

const NAMESPACE = 'http://ws.plimus.com';
const xmlHead = `<?xml version="1.0" encoding="UTF-8"?>\n`;
const productShape = { root: 'product', wrapped: { productSkus: 'url' } };
const skuShape = { root: 'catalog-sku', wrapped: { catalogPrices: 'catalog-price' } };
const asXml: CallOptions = { format: 'xml', shape: productShape };
const skuXml: CallOptions = { format: 'xml', shape: skuShape };

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
  productShortDescription: 'Three e-books',
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

async function skuRows(merchant: TestMerchant): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'select count(*)::int as n from catalog_sku where merchant_id = $1',
    [merchant.id],
  );
  return rows[0]?.n ?? Number.NaN;
}

/** A failed call's first message (support/http.ts), with its description and how many messages came. */
const failureInFull = (reply: Reply) => ({
  ...failure(reply),
  description: reply.body.message[0]?.description,
  count: reply.body.message.length,
});

/**
 * POST as the original's Extended API answers it: 201, no body, the resource's URL in Location; the id is
 * its last segment.
 */
function expectCreated(reply: Reply, collection = 'products'): number {
  expect(reply.status, reply.text).toBe(201);
  expect(reply.text).toBe('');
  const location = reply.headers.get('location') ?? '';
  expect(location).toMatch(new RegExp(`^${stack.baseUrl}/catalog/${collection}/\\d+$`));
  return Number(location.slice(location.lastIndexOf('/') + 1));
}

describe('products', () => {
  it("XML: the reference's Create Product example is 201 with Location; Retrieve gives the product.xsd document", async () => {
    const request =
      `<product xmlns="${NAMESPACE}"><product-name>new product</product-name>` +
      '<product-short-description>This is the product short description</product-short-description>' +
      '<product-long-description>This is the product long description</product-long-description>' +
      '<product-info-url>http://www.myurl.com</product-info-url>' +
      '<product-merchant-descriptor>merchantname123456</product-merchant-descriptor>' +
      '<product-support-email>support@example.com</product-support-email>' +
      '<product-image>image.jpg</product-image></product>';
    const productId = expectCreated(await api.post('/catalog/products', request, asXml));
    const skuId = expectCreated(
      await api.post('/catalog/skus', skuRequest(productId, 'Single', '9.99', 'EUR')),
      'skus',
    );
    const read = await api.get(`/catalog/products/${productId}`, { ...asXml, accept: 'application/xml' });
    expectOk(read);
    expect(read.headers.get('content-type')).toContain('application/xml');
    expect(read.text).toBe(
      `${xmlHead}<product xmlns="${NAMESPACE}"><product-id>${productId}</product-id>` +
        '<product-status>A</product-status><product-name>new product</product-name>' +
        '<product-short-description>This is the product short description</product-short-description>' +
        '<product-long-description>This is the product long description</product-long-description>' +
        '<product-info-url>http://www.myurl.com</product-info-url><product-image>image.jpg</product-image>' +
        '<product-merchant-descriptor>MERCHANTNAME123456</product-merchant-descriptor>' +
        '<product-support-email>support@example.com</product-support-email>' +
        `<product-skus><url>${stack.baseUrl}/catalog/skus/${skuId}</url></product-skus></product>`,
    );
  });

  it('JSON: optional fields left out, skus as URLs in order; an unset element is written empty in XML', async () => {
    const productId = expectCreated(await api.post('/catalog/products', product({ productStatus: 'i' })));
    const read = await api.get(`/catalog/products/${productId}`);
    expectOk(read);
    expect(read.body).toEqual({
      productId,
      productStatus: 'I',
      productName: 'E-book bundle',
      productShortDescription: 'Three e-books',
      productSkus: [],
    });
    const skus = [];
    for (const name of ['Single', 'Family'])
      skus.push(
        expectCreated(await api.post('/catalog/skus', skuRequest(productId, name, '1.00', 'EUR')), 'skus'),
      );
    const withSkus = await api.get(`/catalog/products/${productId}`);
    expect(withSkus.body.productSkus).toEqual(skus.map((id) => `${stack.baseUrl}/catalog/skus/${id}`));
    const xml = await api.get(`/catalog/products/${productId}`, { ...asXml, accept: 'application/xml' });
    expect(xml.text).toContain(
      '<product-short-description>Three e-books</product-short-description><product-long-description/>',
    );
    // The trailing slash and an empty query are the same route (see docs/conformance.md, Paths and versions).
    expect((await api.get(`/catalog/products/${productId}/?`)).text).toBe(withSkus.text);
  });

  it('Update Product: 204, the fields replaced, and its skus named after its new name', async () => {
    const productId = expectCreated(await api.post('/catalog/products', product({ productImage: 'a.png' })));
    const skuId = expectCreated(
      await api.post('/catalog/skus', skuRequest(productId, 'Single', '1.00', 'EUR')),
      'skus',
    );
    expect((await api.get(`/catalog/skus/${skuId}`)).body.skuName).toBe('E-book bundle - Single');
    const update = await api.put(`/catalog/products/${productId}`, product({ productName: 'Audio bundle' }));
    expect(update.status, update.text).toBe(204);
    expect(update.text).toBe('');
    const read = (await api.get(`/catalog/products/${productId}`)).body;
    expect(read).toMatchObject({ productName: 'Audio bundle', productStatus: 'A' });
    expect(read.productImage).toBeUndefined();
    expect((await api.get(`/catalog/skus/${skuId}`)).body.skuName).toBe('Audio bundle - Single');
    expect(failureInFull(await api.put('/catalog/products/999999999', product()))).toMatchObject({
      status: 404,
    });
    // An XML client sends the product it retrieved back, changed: the elements answered empty are unset.
    const retrieved = await api.get(`/catalog/products/${productId}`, {
      ...asXml,
      accept: 'application/xml',
    });
    expect(retrieved.text).toContain('<product-image/>');
    const changed = retrieved.text.replace('<product-name>Audio bundle</', '<product-name>Audio box</');
    const putBack = await api.put(`/catalog/products/${productId}`, undefined, { ...asXml, raw: changed });
    expect(putBack.status, putBack.text).toBe(204);
    expect((await api.get(`/catalog/products/${productId}`)).body).toMatchObject({
      productName: 'Audio box',
    });
  });
});

describe('skus', () => {
  it("XML: the reference's Create SKU example is 201 with Location; Retrieve gives the catalog-sku document", async () => {
    const productId = expectCreated(await api.post('/catalog/products', product({ productName: 'Tea' })));
    const request =
      `<catalog-sku xmlns="${NAMESPACE}"><contract-name>One time charge - USD base</contract-name>` +
      `<product-id>${productId}</product-id><sku-type>DIGITAL</sku-type><pricing-settings>` +
      '<charge-policy-type>ONE TIME PAYMENT</charge-policy-type><charge-policy><one-time-charge><catalog-prices>' +
      '<catalog-price><base-price>true</base-price><currency>USD</currency><amount>7.00</amount></catalog-price>' +
      '</catalog-prices></one-time-charge></charge-policy></pricing-settings></catalog-sku>';
    const skuId = expectCreated(await api.post('/catalog/skus', request, skuXml), 'skus');
    const read = await api.get(`/catalog/skus/${skuId}`, { ...skuXml, accept: 'application/xml' });
    expectOk(read);
    expect(read.text).toBe(
      `${xmlHead}<catalog-sku xmlns="${NAMESPACE}"><sku-id>${skuId}</sku-id>` +
        '<sku-name>Tea - One time charge - USD base</sku-name><contract-name>One time charge - USD base</contract-name>' +
        `<product-id>${productId}</product-id><sku-status>A</sku-status><sku-type>DIGITAL</sku-type>` +
        '<pricing-settings><charge-policy-type>ONE TIME PAYMENT</charge-policy-type><charge-policy>' +
        '<one-time-charge><catalog-prices><catalog-price><base-price>true</base-price><currency>USD</currency>' +
        '<amount>7.00</amount></catalog-price></catalog-prices></one-time-charge></charge-policy></pricing-settings>' +
        '<sku-quantity-policy><allow-quantity-change>true</allow-quantity-change><minimum-quantity>1</minimum-quantity>' +
        '</sku-quantity-policy><collect-shipping-address>false</collect-shipping-address></catalog-sku>',
    );
  });

  it('JSON: amounts with their currency, the contract name by default "Full Version", settings kept', async () => {
    const productId = expectCreated(await api.post('/catalog/products', product({ productName: 'Matcha' })));
    const { contractName: _name, ...unnamed } = skuRequest(productId, '', '1000', 'JPY');
    const skuId = expectCreated(
      await api.post('/catalog/skus', {
        ...unnamed,
        skuType: 'physical',
        skuImage: 'tin.png',
        skuQuantityPolicy: { allowQuantityChange: 'false', minimumQuantity: '2' },
        collectShippingAddress: true,
      }),
      'skus',
    );
    expect((await api.get(`/catalog/skus/${skuId}`)).body).toEqual({
      skuId,
      skuName: 'Matcha - Full Version',
      contractName: 'Full Version',
      productId,
      skuStatus: 'A',
      skuType: 'PHYSICAL',
      pricingSettings: {
        chargePolicyType: 'ONE TIME PAYMENT',
        chargePolicy: {
          oneTimeCharge: { catalogPrices: [{ basePrice: true, currency: 'JPY', amount: 1000 }] },
        },
      },
      skuImage: 'tin.png',
      skuQuantityPolicy: { allowQuantityChange: false, minimumQuantity: 2 },
      collectShippingAddress: true,
    });
    const xml = await api.get(`/catalog/skus/${skuId}`, { ...skuXml, accept: 'application/xml' });
    expect(xml.text).toContain('<currency>JPY</currency><amount>1000</amount>');
  });

  it('Update SKU: 204, the whole sku replaced; an order placed before keeps its price', async () => {
    const productId = expectCreated(await api.post('/catalog/products', product({ productName: 'Cake' })));
    const skuId = expectCreated(
      await api.post('/catalog/skus', skuRequest(productId, 'Slice', '3.50', 'EUR')),
      'skus',
    );
    const update = await api.put(`/catalog/skus/${skuId}`, {
      ...skuRequest(productId, 'Whole', '20.00', 'EUR'),
      skuStatus: 'I',
    });
    expect(update.status, update.text).toBe(204);
    expect((await api.get(`/catalog/skus/${skuId}`)).body).toMatchObject({
      skuName: 'Cake - Whole',
      skuStatus: 'I',
      pricingSettings: { chargePolicy: { oneTimeCharge: { catalogPrices: [{ amount: 20 }] } } },
    });
    expect(
      failureInFull(await api.put('/catalog/skus/999999999', skuRequest(productId, 'X', '1.00', 'EUR'))),
    ).toMatchObject({
      status: 404,
    });
    expect(
      failureInFull(await api.put(`/catalog/skus/${skuId}`, skuRequest(999999999, 'X', '1.00', 'EUR'))),
    ).toMatchObject({
      status: 400,
      property: 'productId',
    });
  });
});

describe('validation', () => {
  it.each([
    ['no productName', product({ productName: undefined }), 'productName'],
    ['an empty productName', product({ productName: '  ' }), 'productName'],
    ['a productName of 101 characters', product({ productName: 'p'.repeat(101) }), 'productName'],
    ['a productName that is not text', product({ productName: 42 }), 'productName'],
    [
      'no productShortDescription',
      product({ productShortDescription: undefined }),
      'productShortDescription',
    ],
    ['an unknown productStatus', product({ productStatus: 'X' }), 'productStatus'],
    [
      'a descriptor of 21 characters',
      product({ productMerchantDescriptor: 'd'.repeat(21) }),
      'productMerchantDescriptor',
    ],
    ['a support email that is none', product({ productSupportEmail: 'nobody' }), 'productSupportEmail'],
  ])('a product with %s: 400 naming the property, nothing stored', async (_case, body, property) => {
    const before = await productRows(stack.merchant);
    const reply = await api.post('/catalog/products', body);
    expect(failureInFull(reply)).toMatchObject({
      status: 400,
      errorName: 'VALIDATION_GENERAL_FAILURE',
      code: 10001,
      property,
      count: 1,
    });
    expect(await productRows(stack.merchant)).toBe(before);
  });

  let productId = 0;
  beforeAll(async () => {
    productId = expectCreated(await api.post('/catalog/products', product({ productName: 'Refusals' })));
  });
  const prices = 'pricingSettings.chargePolicy.oneTimeCharge.catalogPrices';
  const sku = (change: (body: ReturnType<typeof skuRequest>) => unknown) => () =>
    change(skuRequest(productId, 'A', '1.00', 'EUR'));
  const withPrice = (price: Record<string, unknown>) =>
    sku((body) => ({
      ...body,
      pricingSettings: {
        ...body.pricingSettings,
        chargePolicy: { oneTimeCharge: { catalogPrices: [price] } },
      },
    }));
  it.each([
    ['no productId', sku(({ productId: _p, ...body }) => body), 'productId', 'VALIDATION_GENERAL_FAILURE'],
    [
      'an unknown product',
      sku((body) => ({ ...body, productId: 999999999 })),
      'productId',
      'VALIDATION_GENERAL_FAILURE',
    ],
    ['no skuType', sku(({ skuType: _t, ...body }) => body), 'skuType', 'VALIDATION_GENERAL_FAILURE'],
    [
      'an unknown skuType',
      sku((body) => ({ ...body, skuType: 'SERVICE' })),
      'skuType',
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'an unknown skuStatus',
      sku((body) => ({ ...body, skuStatus: 'X' })),
      'skuStatus',
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'a recurring charge policy',
      sku((body) => ({
        ...body,
        pricingSettings: { ...body.pricingSettings, chargePolicyType: 'RECURRING' },
      })),
      'pricingSettings.chargePolicyType',
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'two prices',
      sku((body) => ({
        ...body,
        pricingSettings: {
          ...body.pricingSettings,
          chargePolicy: {
            oneTimeCharge: {
              catalogPrices: [
                { currency: 'EUR', amount: 1 },
                { currency: 'USD', amount: 1 },
              ],
            },
          },
        },
      })),
      prices,
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'a zero price',
      withPrice({ currency: 'EUR', amount: 0 }),
      `${prices}.0.amount`,
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'an unknown currency',
      withPrice({ currency: 'EUX', amount: 1 }),
      `${prices}.0.currency`,
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'a price not the base price',
      withPrice({ basePrice: false, currency: 'EUR', amount: 1 }),
      `${prices}.0.basePrice`,
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'decimals in JPY',
      withPrice({ currency: 'JPY', amount: '100.5' }),
      `${prices}.0.amount`,
      'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS',
    ],
    [
      'effective dates',
      sku((body) => ({ ...body, skuEffectiveDates: { effectiveFrom: '01-Jan-27' } })),
      'skuEffectiveDates',
      'VALIDATION_GENERAL_FAILURE',
    ],
    [
      'a minimum quantity of 0',
      sku((body) => ({ ...body, skuQuantityPolicy: { minimumQuantity: 0 } })),
      'skuQuantityPolicy.minimumQuantity',
      'VALIDATION_GENERAL_FAILURE',
    ],
  ])('a sku with %s: 400 naming the property, nothing stored', async (_case, body, property, errorName) => {
    const before = await skuRows(stack.merchant);
    const reply = await api.post('/catalog/skus', body());
    expect(failureInFull(reply)).toMatchObject({ status: 400, errorName, property, count: 1 });
    expect(await skuRows(stack.merchant)).toBe(before);
  });

  it('reports every problem of one request at once', async () => {
    const reply = await api.post('/catalog/products', { productName: '', productStatus: 'Z' });
    expect(reply.status).toBe(400);
    expect(
      reply.body.message.map((m: { invalidProperty: { name: string } }) => m.invalidProperty.name).sort(),
    ).toEqual(['productName', 'productShortDescription', 'productStatus']);
  });

  it('XML errors come back as XML messages; a body that is not the document is 400', async () => {
    const noName = `<product xmlns="${NAMESPACE}"><product-short-description>S</product-short-description></product>`;
    const reply = await api.post('/catalog/products', noName, asXml);
    expect(reply.status).toBe(400);
    expect(reply.text).toContain(
      '<messages xmlns="http://ws.plimus.com"><message><error-name>VALIDATION_GENERAL_FAILURE</error-name>' +
        '<code>10001</code><description>productName: is required</description>',
    );
    const wrongRoot = await api.post('/catalog/products', `<catalog xmlns="${NAMESPACE}"/>`, asXml);
    expect(failureInFull(wrongRoot)).toMatchObject({ status: 400, property: 'body' });
    const skuAsProduct = await api.post('/catalog/skus', `<product xmlns="${NAMESPACE}"/>`, skuXml);
    expect(failureInFull(skuAsProduct)).toMatchObject({ status: 400, property: 'body' });
    const notJson = await api.post('/catalog/products', undefined, { raw: '{"productName":' });
    expect(failureInFull(notJson)).toMatchObject({ status: 400, property: 'body' });
  });

  it('GET: unknown ids 404, ids that are no number 400', async () => {
    for (const collection of ['products', 'skus']) {
      expect(failureInFull(await api.get(`/catalog/${collection}/999999999`))).toMatchObject({
        status: 404,
        errorName: 'RESOURCE_NOT_FOUND',
      });
      expect(failureInFull(await api.get(`/catalog/${collection}/abc`)).status).toBe(400);
    }
  });
});

describe('merchants', () => {
  it("another merchant's product is 404 and looks exactly like an unknown one", async () => {
    const mine = { productId: expectCreated(await api.post('/catalog/products', product())) };
    const other = await stack.newMerchant();
    const theirs = await api.get(`/catalog/products/${mine.productId}`, { merchant: other });
    expect(failureInFull(theirs)).toMatchObject({ status: 404, errorName: 'RESOURCE_NOT_FOUND' });
    const unknown = await api.get('/catalog/products/999999998', { merchant: other });
    expect(theirs.text.replace(String(mine.productId), 'ID')).toBe(unknown.text.replace('999999998', 'ID'));
    // Nor can it read or price the owner's skus.
    const skuId = expectCreated(
      await api.post('/catalog/skus', skuRequest(mine.productId, 'A', '1.00', 'EUR')),
      'skus',
    );
    expect(failureInFull(await api.get(`/catalog/skus/${skuId}`, { merchant: other }))).toMatchObject({
      status: 404,
    });
    const onTheirs = await api.post('/catalog/skus', skuRequest(mine.productId, 'B', '1.00', 'EUR'), {
      merchant: other,
    });
    expect(failureInFull(onTheirs)).toMatchObject({ status: 400, property: 'productId' });
    const update = await api.put(`/catalog/skus/${skuId}`, skuRequest(mine.productId, 'C', '1.00', 'EUR'), {
      merchant: other,
    });
    expect(failureInFull(update)).toMatchObject({ status: 404 });
    // And the owner still reads them, unchanged.
    expectOk(await api.get(`/catalog/products/${mine.productId}`));
    expect((await api.get(`/catalog/skus/${skuId}`)).body.contractName).toBe('A');
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
      `<product xmlns="${NAMESPACE}"><product-name>X</product-name>` +
      '<product-short-description>S</product-short-description></product>';
    const xmlOptions: CallOptions = { ...asXml, merchant, headers: { 'idempotency-key': xmlKey } };
    const firstXml = await api.post('/catalog/products', xml, xmlOptions);
    const againXml = await api.post('/catalog/products', xml, xmlOptions);
    expect(expectCreated(againXml)).toBe(expectCreated(firstXml));
    expect(await productRows(merchant)).toBe(2);

    // The key with another body is refused, and stores nothing.
    const changed = await api.post('/catalog/products', product({ productName: 'Other' }), options);
    expect(failureInFull(changed)).toMatchObject({ status: 422, code: 60101 });
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
    expect(first).toMatchObject({ skuName: 'Paywire Sample Product - Full Version', price: '10.00 EUR' });
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
    expect(read.body.productSkus).toEqual([`${stack.baseUrl}/catalog/skus/${first.skuId}`]);
    expect(await skuRows(merchant)).toBe(1);
  });
});
