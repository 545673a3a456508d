import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogue } from '../support/catalog.ts';
import { type CallOptions, client, type Reply } from '../support/http.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// The Extended API (see docs/conformance.md, Extended API): POST /shoppers, POST /orders for an existing
// shopper paid with its vaulted card through the card sale path, and /catalog/custom-parameters; real HTTP,
// XML and JSON, PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

const NAMESPACE = 'http://ws.plimus.com';
const VISA = '4263982640269299';
const MASTERCARD = '5425233430109903';

let stack: Stack;
let api: ReturnType<typeof client>;
let db: pg.Pool;
/** The stack merchant's catalogue: two EUR skus, a USD sku and one whose price the sandbox declines (.51). */
const sku = { ebook: 0, audiobook: 0, usEdition: 0, declined: 0 };

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  db = stack.db;
  const { skuIds } = await createCatalogue(api, 'Books', [
    ['Ebook', '10.00', 'EUR'],
    ['Audiobook', '2.50', 'EUR'],
    ['US edition', '5.00', 'USD'],
    ['Declined', '10.51', 'EUR'],
  ]);
  const [ebook = 0, audiobook = 0, usEdition = 0, declined = 0] = skuIds;
  Object.assign(sku, { ebook, audiobook, usEdition, declined });
});

afterAll(async () => {
  await stack?.close();
});

/** The path under /services/2 of a reply's Location. */
function path(reply: Reply): string {
  const location = reply.headers.get('location') ?? '';
  expect(location.startsWith(stack.baseUrl), location).toBe(true);
  return location.slice(stack.baseUrl.length);
}

/** The one error of a failed call. */
function failure(reply: Reply) {
  const [message] = reply.body.message as Array<Record<string, unknown>>;
  const property = message?.invalidProperty as { name?: string } | undefined;
  return { errorName: message?.errorName, code: Number(message?.code), property: property?.name };
}

async function counts(merchant: TestMerchant = stack.merchant) {
  const { rows } = await db.query<
    Record<'shoppers' | 'cards' | 'sales' | 'orders' | 'items' | 'invoices' | 'parameters', number>
  >(
    `select (select count(*) from shopper where merchant_id = $1)::int as shoppers,
            (select count(*) from stored_card where merchant_id = $1)::int as cards,
            (select count(*) from card_transaction where merchant_id = $1)::int as sales,
            (select count(*) from shopper_order where merchant_id = $1)::int as orders,
            (select count(*) from order_item where merchant_id = $1)::int as items,
            (select count(*) from invoice where merchant_id = $1)::int as invoices,
            (select count(*) from custom_parameter where merchant_id = $1)::int as parameters`,
    [merchant.id],
  );
  const [row] = rows;
  if (!row) throw new Error('no counts');
  return row;
}

const xml: CallOptions = { format: 'xml', accept: 'application/xml' };
const webInfoXml =
  '<web-info><ip>62.219.121.253</ip><remote-host>www.example.com</remote-host>' +
  '<user-agent>Mozilla/5.0 (X11; Linux x86_64)</user-agent></web-info>';
const webInfo = { ip: '62.219.121.253', remoteHost: 'www.example.com', userAgent: 'Mozilla/5.0' };

/** The reference's Create Shopper document, with one card. */
function shopperXml(cardNumber = VISA) {
  return `<?xml version="1.0" encoding="UTF-8"?>
<shopper xmlns="${NAMESPACE}">
  ${webInfoXml}
  <shopper-info>
    <seller-shopper-id>seller-${randomUUID().slice(0, 8)}</seller-shopper-id>
    <shopper-currency>EUR</shopper-currency>
    <store-id>4677</store-id>
    <locale>en</locale>
    <shopper-contact-info>
      <title>Mr.</title>
      <first-name>John</first-name>
      <last-name>Doe</last-name>
      <email>john.doe@example.com</email>
      <company-name>JohnDoeAndSons</company-name>
      <address1>138 Market St</address1>
      <city>San Francisco</city>
      <zip>94105</zip>
      <country>us</country>
      <phone>1-555-555-1212</phone>
      <fax>1-555-555-1213</fax>
    </shopper-contact-info>
    <payment-info>
      <credit-cards-info>
        <credit-card-info>
          <billing-contact-info><first-name>John</first-name><last-name>Doe</last-name><zip>94105</zip></billing-contact-info>
          <credit-card>
            <card-number>${cardNumber}</card-number>
            <security-code>837</security-code>
            <expiration-month>07</expiration-month>
            <expiration-year>2031</expiration-year>
          </credit-card>
        </credit-card-info>
      </credit-cards-info>
    </payment-info>
  </shopper-info>
  <fraud-info><fraud-session-id>1234</fraud-session-id></fraud-info>
</shopper>`;
}

const shopperJson = (cards: string[]) => ({
  webInfo,
  shopperInfo: {
    shopperContactInfo: { firstName: 'Jane', lastName: 'Roe', email: 'jane@example.com', country: 'DE' },
    paymentInfo: {
      creditCardsInfo: cards.map((cardNumber) => ({
        creditCard: { cardNumber, expirationMonth: '03', expirationYear: '2032' },
      })),
    },
  },
});

async function newShopper(cards = [VISA]): Promise<number> {
  const reply = await api.post('/shoppers', shopperJson(cards));
  expect(reply.status, reply.text).toBe(201);
  return Number(/\/shoppers\/(\d+)$/.exec(path(reply))?.[1]);
}

/** An order of `items` (sku id, quantity and, optionally, the item's sku-parameter elements). */
function orderXml(shopperId: number, items: Array<[number, number, string?]>, expected: string, card = '') {
  return `<?xml version="1.0" encoding="UTF-8"?>
<order xmlns="${NAMESPACE}">
  <ordering-shopper>
    <shopper-id>${shopperId}</shopper-id>
    ${card}
    ${webInfoXml}
  </ordering-shopper>
  <cart>
${items.map(([id, quantity, parameters = '']) => `    <cart-item><sku><sku-id>${id}</sku-id></sku><quantity>${quantity}</quantity>${parameters}</cart-item>`).join('\n')}
  </cart>
  <expected-total-price><amount>${expected}</amount><currency>EUR</currency></expected-total-price>
</order>`;
}

const orderJson = (shopperId: number, overrides: Record<string, unknown> = {}) => ({
  orderingShopper: { shopperId, webInfo },
  cart: { cartItem: [{ sku: { skuId: sku.ebook }, quantity: 2 }] },
  expectedTotalPrice: { amount: '20.00', currency: 'EUR' },
  ...overrides,
});

/** The names of an element's children, in document order. */
function childNames(text: string, element: string): string[] {
  const inner = new RegExp(`<${element}(?:\\s[^>]*)?>([\\s\\S]*?)</${element}>`).exec(text)?.[1] ?? '';
  const names: string[] = [];
  let depth = 0;
  for (const [, closing, name, selfClosing] of inner.matchAll(/<(\/?)([a-z0-9-]+)[^>]*?(\/?)>/g)) {
    if (closing) depth -= 1;
    else {
      if (depth === 0 && name) names.push(name);
      if (!selfClosing) depth += 1;
    }
  }
  return names;
}

describe('POST /shoppers', () => {
  it('creates a vaulted shopper from the XML document: 201, its URL in Location, no body', async () => {
    const before = await counts();
    const reply = await api.post('/shoppers', shopperXml(), xml);
    expect(reply.status, reply.text).toBe(201);
    expect(reply.text).toBe('');
    const location = path(reply);
    expect(location).toMatch(/^\/shoppers\/\d+$/);
    expect(await counts()).toMatchObject({ shoppers: before.shoppers + 1, cards: before.cards + 1 });

    const shopper = await api.get(location, xml);
    expect(shopper.status, shopper.text).toBe(200);
    expect(childNames(shopper.text, 'shopper-info')).toEqual([
      'shopper-id',
      'shopper-contact-info',
      'shipping-contact-info',
      'invoice-contacts-info',
      'payment-info',
      'store-id',
      'shopper-currency',
      'locale',
    ]);
    expect(childNames(shopper.text, 'shopper-contact-info')).toEqual([
      'title',
      'first-name',
      'last-name',
      'email',
      'company-name',
      'address1',
      'city',
      'zip',
      'country',
      'phone',
      'fax',
    ]);
    expect(shopper.text).toContain('<card-last-four-digits>9299</card-last-four-digits>');
    expect(shopper.text).toContain('<store-id>4677</store-id>');
    expect(shopper.text).not.toContain(VISA);

    // The same shopper is a vaulted shopper of the JSON API, its card chargeable there.
    const id = Number(location.split('/').pop());
    const vaulted = await api.get(`/vaulted-shoppers/${id}`);
    expect(vaulted.body).toMatchObject({ vaultedShopperId: id, firstName: 'John', country: 'US' });
    const { rows } = await db.query('select sealed_number from stored_card where shopper_id = $1', [id]);
    expect(rows[0]?.sealed_number).not.toContain(VISA);
  });

  it('creates one from JSON, with two cards', async () => {
    const id = await newShopper([VISA, MASTERCARD]);
    const shopper = await api.get(`/shoppers/${id}`);
    expect(shopper.body.shopperInfo.paymentInfo.creditCardsInfo).toHaveLength(2);
    expect(shopper.body.shopperInfo.shopperContactInfo).toMatchObject({ firstName: 'Jane', country: 'DE' });
  });

  it('refuses bad input in the error shape, storing nothing', async () => {
    const before = await counts();
    const badCard = await api.post('/shoppers', shopperXml('4263982640269298'), xml);
    expect(badCard.status, badCard.text).toBe(400);
    expect(failure(badCard)).toEqual({
      errorName: 'VALIDATION_GENERAL_FAILURE',
      code: 10001,
      property: 'shopperInfo.paymentInfo.creditCardsInfo.0.creditCard.cardNumber',
    });
    expect(badCard.text).not.toContain('4263982640269298');

    const noWebInfo = await api.post('/shoppers', { ...shopperJson([VISA]), webInfo: undefined });
    expect(noWebInfo.status, noWebInfo.text).toBe(400);
    expect(failure(noWebInfo).property).toBe('webInfo');

    const noEmail = shopperJson([VISA]);
    const { email: _, ...contact } = noEmail.shopperInfo.shopperContactInfo;
    const missing = await api.post('/shoppers', {
      ...noEmail,
      shopperInfo: { ...noEmail.shopperInfo, shopperContactInfo: contact },
    });
    expect(failure(missing).property).toBe('shopperInfo.shopperContactInfo.email');
    expect(await counts()).toEqual(before);
  });
});

describe('POST /orders', () => {
  it('places an order of the shopper in XML: a card sale, 201 with the order in schema order', async () => {
    const shopperId = await newShopper();
    const before = await counts();
    const reply = await api.post(
      '/orders',
      orderXml(
        shopperId,
        [
          [sku.ebook, 2],
          [sku.audiobook, 1],
        ],
        '22.50',
      ),
      xml,
    );
    expect(reply.status, reply.text).toBe(201);
    const orderId = Number(/<order-id>(\d+)<\/order-id>/.exec(reply.text)?.[1]);
    expect(path(reply)).toBe(`/orders/${orderId}`);
    expect(childNames(reply.text, 'order')).toEqual([
      'order-id',
      'soft-descriptor',
      'ordering-shopper',
      'cart',
      'post-sale-info',
      'fulfillment',
    ]);
    expect(childNames(reply.text, 'ordering-shopper')).toEqual(['shopper-id', 'credit-card']);
    expect(childNames(reply.text, 'cart')).toEqual([
      'charged-currency',
      'cart-item',
      'cart-item',
      'tax',
      'tax-rate',
      'total-cart-cost',
    ]);
    expect(childNames(reply.text, 'financial-transaction')).toEqual([
      'status',
      'date-due',
      'date-created',
      'amount',
      'tax',
      'tax-rate',
      'currency',
      'soft-descriptor',
      'payment-method',
      'target-balance',
      'credit-card',
      'invoice-contact-info',
      'authorization-code',
      'skus',
    ]);
    expect(reply.text).toContain('<total-cart-cost>22.50</total-cart-cost>');
    expect(reply.text).toContain('<payment-method>Credit Card</payment-method>');
    expect(reply.text).toContain('<status>APPROVED</status>');
    expect(reply.text).toContain('<card-last-four-digits>9299</card-last-four-digits>');

    // One sale through the card path, charged to the shopper, and the order's rows.
    expect(await counts()).toMatchObject({
      sales: before.sales + 1,
      orders: before.orders + 1,
      items: before.items + 2,
      invoices: before.invoices + 1,
    });
    const { rows } = await db.query(
      `select t.amount_minor, t.currency, t.shopper_id, t.status from invoice i
         join card_transaction t on t.id = i.card_transaction_id
         join shopper_order o on o.id = i.order_id where o.id = $1`,
      [orderId],
    );
    expect(rows).toEqual([
      { amount_minor: '2250', currency: 'EUR', shopper_id: shopperId, status: 'CAPTURED' },
    ]);

    const again = await api.get(`/orders/${orderId}`, xml);
    expect(again.status, again.text).toBe(200);
    expect(again.text).toBe(reply.text);
  });

  it('charges the card the order names, with the seller order id, in JSON', async () => {
    const shopperId = await newShopper([VISA, MASTERCARD]);
    const sellerOrderId = `order-${randomUUID().slice(0, 8)}`;
    const reply = await api.post(
      '/orders',
      orderJson(shopperId, {
        orderingShopper: {
          shopperId,
          webInfo,
          creditCard: { cardType: 'VISA', cardLastFourDigits: '9299', securityCode: '837' },
        },
        sellerOrderId,
      }),
    );
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({
      sellerOrderId,
      orderingShopper: { shopperId, creditCard: { cardType: 'VISA', cardLastFourDigits: '9299' } },
      cart: { chargedCurrency: 'EUR', totalCartCost: 20 },
    });
    // An item given no custom parameter values carries no skuParameter.
    expect(reply.body.cart.cartItem[0]).not.toHaveProperty('skuParameter');
    const [invoice] = reply.body.postSaleInfo.invoices;
    expect(invoice.url).toBe(`${stack.baseUrl}/orders/${reply.body.orderId}`);
    expect(invoice.financialTransactions[0]).toMatchObject({
      amount: 20,
      currency: 'EUR',
      status: 'APPROVED',
    });
    // The sale is the merchant's transaction under the seller order id.
    const sale = await api.get(`/transactions/${sellerOrderId},${stack.merchant.id}`);
    expect(sale.body).toMatchObject({ amount: 20, currency: 'EUR', vaultedShopperId: shopperId });

    // Without a card named, the newest card pays.
    const newest = await api.post('/orders', orderJson(shopperId));
    expect(newest.body.orderingShopper.creditCard).toEqual({
      cardType: 'MASTERCARD',
      cardLastFourDigits: '9903',
    });
  });

  it('answers a keyed retry with the first answer and places one order', async () => {
    const shopperId = await newShopper();
    const key = randomUUID();
    const options: CallOptions = { headers: { 'idempotency-key': key } };
    const before = await counts();
    const first = await api.post('/orders', orderJson(shopperId), options);
    const again = await api.post('/orders', orderJson(shopperId), options);
    expect(first.status, first.text).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await counts()).toMatchObject({ orders: before.orders + 1, sales: before.sales + 1 });
  });

  it('refuses what the reference refuses, in the error shape, with no order, sale or item', async () => {
    const shopperId = await newShopper();
    const other = await stack.newMerchant();
    const before = await counts();
    const cases: Array<[unknown, number, string, string | undefined, CallOptions?]> = [
      [orderJson(999_999_999), 404, 'SHOPPER_NOT_FOUND', 'orderingShopper.shopperId'],
      [orderJson(shopperId), 404, 'SHOPPER_NOT_FOUND', 'orderingShopper.shopperId', { merchant: other }],
      [
        orderJson(shopperId, { expectedTotalPrice: { amount: '19.99', currency: 'EUR' } }),
        400,
        'VALIDATION_GENERAL_FAILURE',
        'expectedTotalPrice.amount',
      ],
      [
        orderJson(shopperId, { cart: { cartItem: [{ sku: { skuId: 1 }, quantity: 1 }] } }),
        400,
        'VALIDATION_GENERAL_FAILURE',
        'cart.cartItem.0.sku.skuId',
      ],
      [
        orderJson(shopperId, {
          cart: { cartItem: [{ sku: { skuId: sku.usEdition }, quantity: 1 }] },
          expectedTotalPrice: { amount: '5.00', currency: 'EUR' },
        }),
        400,
        'VALIDATION_GENERAL_FAILURE',
        'cart.cartItem.0.sku.skuId',
      ],
      [
        orderJson(shopperId, {
          orderingShopper: {
            shopperId,
            webInfo,
            creditCard: { cardType: 'AMEX', cardLastFourDigits: '0126' },
          },
        }),
        400,
        'VALIDATION_GENERAL_FAILURE',
        'orderingShopper.creditCard',
      ],
      [orderJson(shopperId, { cart: { cartItem: [] } }), 400, 'VALIDATION_GENERAL_FAILURE', 'cart.cartItem'],
      [
        orderJson(shopperId, { orderingShopper: { shopperId } }),
        400,
        'VALIDATION_GENERAL_FAILURE',
        'orderingShopper.webInfo',
      ],
      [
        orderJson(shopperId, {
          cart: { cartItem: [{ sku: { skuId: sku.declined }, quantity: 1 }] },
          expectedTotalPrice: { amount: '10.51', currency: 'EUR' },
        }),
        400,
        'INSUFFICIENT_FUNDS',
        undefined,
      ],
    ];
    for (const [body, status, errorName, property, options] of cases) {
      const reply = await api.post('/orders', body, options);
      expect(reply.status, reply.text).toBe(status);
      expect(failure(reply)).toMatchObject({ errorName, ...(property ? { property } : {}) });
    }
    // And in XML, in the XML error shape.
    const wrongTotal = await api.post('/orders', orderXml(shopperId, [[sku.ebook, 1]], '11.00'), xml);
    expect(wrongTotal.status, wrongTotal.text).toBe(400);
    expect(wrongTotal.text).toContain('<error-name>VALIDATION_GENERAL_FAILURE</error-name>');
    expect(wrongTotal.text).toContain('<name>expectedTotalPrice.amount</name>');

    const after = await counts();
    expect(after).toEqual(before);
    // The declined sale is an attempt of the payment pipeline, not a transaction.
    const { rows } = await db.query(
      `select count(*)::int as declined from payment_attempt where merchant_id = $1 and state = 'DECLINED'`,
      [stack.merchant.id],
    );
    expect(rows[0]?.declined).toBeGreaterThanOrEqual(1);
  });
});

describe('/catalog/custom-parameters', () => {
  const shortTextXml = `<?xml version="1.0" encoding="UTF-8"?>
<custom-parameter xmlns="${NAMESPACE}">
  <custom-param-title>Where did you hear about us?</custom-param-title>
  <active>true</active>
  <mandatory>true</mandatory>
  <custom-param-settings>
    <custom-param-type>SHORT-TEXT</custom-param-type>
    <short-text-type>
      <maximum-length>2000</maximum-length>
      <minimum-length>7</minimum-length>
      <regex-validation>[a-zA-Z]</regex-validation>
    </short-text-type>
    <visual-settings><title-alignment>LEFT</title-alignment></visual-settings>
  </custom-param-settings>
</custom-parameter>`;

  it('creates (201, Location), retrieves (200, schema order) and replaces (204) a parameter', async () => {
    const created = await api.post('/catalog/custom-parameters', shortTextXml, xml);
    expect(created.status, created.text).toBe(201);
    expect(created.text).toBe('');
    const location = path(created);
    expect(location).toMatch(/^\/catalog\/custom-parameters\/\d+$/);
    const id = Number(location.split('/').pop());

    const read = await api.get(location, xml);
    expect(read.status, read.text).toBe(200);
    expect(childNames(read.text, 'custom-parameter')).toEqual([
      'custom-param-id',
      'custom-param-title',
      'active',
      'mandatory',
      'custom-param-settings',
    ]);
    expect(childNames(read.text, 'custom-param-settings')).toEqual([
      'custom-param-type',
      'short-text-type',
      'visual-settings',
    ]);
    expect(childNames(read.text, 'short-text-type')).toEqual([
      'minimum-length',
      'maximum-length',
      'regex-validation',
    ]);

    const replaced = await api.put(location, {
      customParamTitle: 'T-shirt size',
      mandatory: true,
      customParamSettings: {
        customParamType: 'fixed-selection',
        fixedSelectionType: { dropDownValues: ['S', 'M', 'L'] },
      },
    });
    expect(replaced.status, replaced.text).toBe(204);
    const json = await api.get(location);
    expect(json.body).toEqual({
      customParamId: id,
      customParamTitle: 'T-shirt size',
      active: true,
      mandatory: true,
      customParamSettings: {
        customParamType: 'FIXED-SELECTION',
        fixedSelectionType: { dropDownValues: ['S', 'M', 'L'] },
      },
    });
    const asXml = await api.get(location, xml);
    expect(asXml.text).toContain(
      '<drop-down-values><drop-down-value>S</drop-down-value><drop-down-value>M</drop-down-value><drop-down-value>L</drop-down-value></drop-down-values>',
    );
  });

  it("refuses bad settings and another merchant's parameter, changing nothing", async () => {
    const created = await api.post('/catalog/custom-parameters', {
      customParamTitle: 'Gift wrap',
      customParamSettings: { customParamType: 'BOOLEAN' },
    });
    expect(created.status, created.text).toBe(201);
    const location = path(created);
    const before = await counts();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ customParamSettings: { customParamType: 'BOOLEAN' } }, 'customParamTitle'],
      [
        { customParamTitle: 'x', customParamSettings: { customParamType: 'COLOUR' } },
        'customParamSettings.customParamType',
      ],
      [
        { customParamTitle: 'x', customParamSettings: { customParamType: 'FIXED-SELECTION' } },
        'customParamSettings.fixedSelectionType',
      ],
      [
        {
          customParamTitle: 'x',
          customParamSettings: { customParamType: 'BOOLEAN', shortTextType: { maximumLength: 5 } },
        },
        'customParamSettings.shortTextType',
      ],
      [
        {
          customParamTitle: 'x',
          customParamSettings: {
            customParamType: 'SHORT-TEXT',
            shortTextType: { minimumLength: 9, maximumLength: 5 },
          },
        },
        'customParamSettings.shortTextType.minimumLength',
      ],
      [
        {
          customParamTitle: 'x',
          customParamSettings: { customParamType: 'SHORT-TEXT', shortTextType: { regexValidation: '[a-' } },
        },
        'customParamSettings.shortTextType.regexValidation',
      ],
    ];
    for (const [body, property] of bad) {
      for (const reply of [
        await api.post('/catalog/custom-parameters', body),
        await api.put(location, body),
      ]) {
        expect(reply.status, reply.text).toBe(400);
        expect(failure(reply)).toEqual({ errorName: 'VALIDATION_GENERAL_FAILURE', code: 10001, property });
      }
    }
    const other = await stack.newMerchant();
    expect((await api.get(location, { merchant: other })).status).toBe(404);
    const foreignUpdate = await api.put(
      location,
      { customParamTitle: 'Taken', customParamSettings: { customParamType: 'BOOLEAN' } },
      { merchant: other },
    );
    expect(foreignUpdate.status, foreignUpdate.text).toBe(404);
    expect(await counts()).toEqual(before);
    expect((await api.get(location)).body.customParamTitle).toBe('Gift wrap');
  });
});

// The values of the merchant's custom parameters a cart item carries (order.xsd's sku-parameter: param-name,
// the parameter's title, and param-value), checked against each parameter; a merchant of their own, since a
// mandatory parameter applies to every order of its merchant.
describe('sku parameters of a cart item', () => {
  let merchant: TestMerchant;
  let shopperId = 0;
  let skuId = 0;
  const as = (options: CallOptions = {}): CallOptions => ({ ...options, merchant });

  beforeAll(async () => {
    merchant = await stack.newMerchant();
    [skuId = 0] = (await createCatalogue(api, 'Shirts', [['Shirt', '15.00', 'EUR']], as())).skuIds;
    const shopper = await api.post('/shoppers', shopperJson([VISA]), as());
    expect(shopper.status, shopper.text).toBe(201);
    shopperId = Number(/\/shoppers\/(\d+)$/.exec(path(shopper))?.[1]);
    const parameters = [
      {
        customParamTitle: 'Size',
        mandatory: true,
        customParamSettings: {
          customParamType: 'FIXED-SELECTION',
          fixedSelectionType: { dropDownValues: ['S', 'M', 'L'] },
        },
      },
      { customParamTitle: 'Gift wrap', customParamSettings: { customParamType: 'BOOLEAN' } },
      {
        customParamTitle: 'Engraving',
        customParamSettings: {
          customParamType: 'SHORT-TEXT',
          shortTextType: { minimumLength: 2, maximumLength: 10, regexValidation: '^[A-Z ]+$' },
        },
      },
      {
        customParamTitle: 'Retired',
        active: false,
        customParamSettings: { customParamType: 'BOOLEAN' },
      },
    ];
    for (const parameter of parameters) {
      const reply = await api.post('/catalog/custom-parameters', parameter, as());
      expect(reply.status, reply.text).toBe(201);
    }
  });

  const orderWith = (skuParameter: unknown) => ({
    orderingShopper: { shopperId, webInfo },
    cart: { cartItem: [{ sku: { skuId }, quantity: 1, skuParameter }] },
    expectedTotalPrice: { amount: '15.00', currency: 'EUR' },
  });

  it('takes them in XML, keeps them with the item and answers them back in schema order', async () => {
    const parameters =
      '<sku-parameter><param-name>size</param-name><param-value>M</param-value></sku-parameter>' +
      '<sku-parameter><param-name>Engraving</param-name><param-value>FOR ANNA</param-value></sku-parameter>';
    const document = orderXml(shopperId, [[skuId, 1, parameters]], '15.00');
    const reply = await api.post('/orders', document, as(xml));
    expect(reply.status, reply.text).toBe(201);
    expect(childNames(reply.text, 'cart-item')).toEqual([
      'sku',
      'quantity',
      'sku-parameter',
      'sku-parameter',
      'item-sub-total',
    ]);
    // The parameter's own title is kept, whatever case the cart named it in.
    expect(reply.text).toContain(
      '<sku-parameter><param-name>Size</param-name><param-value>M</param-value></sku-parameter>' +
        '<sku-parameter><param-name>Engraving</param-name><param-value>FOR ANNA</param-value></sku-parameter>',
    );
    const read = await api.get(path(reply), as());
    expect(read.status, read.text).toBe(200);
    expect(read.body.cart.cartItem[0].skuParameter).toEqual([
      { paramName: 'Size', paramValue: 'M' },
      { paramName: 'Engraving', paramValue: 'FOR ANNA' },
    ]);
  });

  it('takes them in JSON', async () => {
    const reply = await api.post(
      '/orders',
      orderWith([
        { paramName: 'Size', paramValue: 'L' },
        { paramName: 'Gift wrap', paramValue: 'true' },
      ]),
      as(),
    );
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.cart.cartItem[0].skuParameter).toEqual([
      { paramName: 'Size', paramValue: 'L' },
      { paramName: 'Gift wrap', paramValue: 'true' },
    ]);
  });

  it('refuses an unknown or inactive parameter, a value its type refuses and a missing mandatory one, writing nothing', async () => {
    const before = await counts(merchant);
    const at = 'cart.cartItem.0.skuParameter';
    const size = { paramName: 'Size', paramValue: 'M' };
    const cases: Array<[unknown, string]> = [
      [[size, { paramName: 'Colour', paramValue: 'red' }], `${at}.1.paramName`],
      [[size, { paramName: 'Retired', paramValue: 'true' }], `${at}.1.paramName`],
      [[{ paramName: 'Size', paramValue: 'XXL' }], `${at}.0.paramValue`],
      [[size, { paramName: 'Gift wrap', paramValue: 'yes' }], `${at}.1.paramValue`],
      [[size, { paramName: 'Engraving', paramValue: 'A' }], `${at}.1.paramValue`],
      [[size, { paramName: 'Engraving', paramValue: 'for anna' }], `${at}.1.paramValue`],
      [[{ paramName: 'Gift wrap', paramValue: 'false' }], at],
      [undefined, at],
      [[size, { paramName: 'SIZE', paramValue: 'S' }], `${at}.1.paramName`],
      [[{ paramName: 'Size' }], `${at}.0.paramValue`],
    ];
    for (const [skuParameter, property] of cases) {
      const reply = await api.post('/orders', orderWith(skuParameter), as());
      expect(reply.status, reply.text).toBe(400);
      expect(failure(reply)).toEqual({ errorName: 'VALIDATION_GENERAL_FAILURE', code: 10001, property });
    }
    const inXml = await api.post('/orders', orderXml(shopperId, [[skuId, 1]], '15.00'), as(xml));
    expect(inXml.status, inXml.text).toBe(400);
    expect(inXml.text).toContain(`<name>${at}</name>`);
    expect(await counts(merchant)).toEqual(before);
  });
});
