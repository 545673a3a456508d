import { randomUUID } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogue, createdId, skuRequest } from '../support/catalog.ts';
import { type CallOptions, client, type Reply } from '../support/http.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Order placement in one batch (see docs/conformance.md, Batch order placement), the orders and shoppers it makes
// (GET /orders/{id}, GET /shoppers/{id}), paid by SEPA direct debit; real HTTP, XML, PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

const NAMESPACE = 'http://ws.plimus.com';
const IBAN = 'DE89370400440532013000'; // sandbox: ends in SUCCESS
const FAILING_IBAN = 'DE62370400440532013001'; // sandbox: ends in FAIL

let stack: Stack;
let api: ReturnType<typeof client>;
let db: pg.Pool;
let origin: string;
/** The stack merchant's catalogue: two EUR skus and one USD sku. */
const sku = { ebook: 0, audiobook: 0, usEdition: 0 };

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  origin = stack.baseUrl.replace(/\/services\/2$/, '');
  db = stack.db;
  const [ebook = 0, audiobook = 0] = await createSkus(stack.merchant, [
    ['Ebook', '10.00', 'EUR'],
    ['Audiobook', '2.50', 'EUR'],
  ]);
  const [usEdition = 0] = await createSkus(stack.merchant, [['US edition', '5.00', 'USD']]);
  Object.assign(sku, { ebook, audiobook, usEdition });
});

afterAll(async () => {
  await stack?.close();
});

async function createSkus(merchant: TestMerchant, skus: Array<[string, string, string]>): Promise<number[]> {
  const { skuIds } = await createCatalogue(api, 'Books', skus, { merchant });
  return skuIds;
}

// ---------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------

interface Cart {
  items: Array<[number, number]>;
  expected: string;
  currency?: string;
  iban?: string;
  authorized?: string;
  softDescriptor?: string;
}

const webInfoXml =
  '<web-info><ip>62.219.121.253</ip><remote-host>www.example.com</remote-host>' +
  '<user-agent>Mozilla/5.0 (X11; Linux x86_64)</user-agent></web-info>';

/** The interface's request document, indented as clients write it. */
function batchXml({
  items,
  expected,
  currency = 'EUR',
  iban = IBAN,
  authorized = 'true',
  softDescriptor,
}: Cart) {
  return `<?xml version="1.0" encoding="UTF-8"?>
<batch-order xmlns="${NAMESPACE}">
  <shopper>
    ${webInfoXml}
    <shopper-info>
      <store-id>12345</store-id>
      <locale>en</locale>
      <shopper-contact-info>
        <title>Ms</title>
        <first-name>Jane</first-name>
        <last-name>Doe</last-name>
        <email>jane.doe@example.com</email>
        <company-name>Doe &amp; Co</company-name>
        <address1>Friedrichstr. 1</address1>
        <city>Berlin</city>
        <zip>10117</zip>
        <country>de</country>
        <phone>+49 30 1234567</phone>
        <fax>+49 30 7654321</fax>
      </shopper-contact-info>
      <payment-info>
        <sepa-direct-debits-info>
          <sepa-direct-debit-info>
            <billing-contact-info>
              <first-name>Jane</first-name>
              <last-name>Doe</last-name>
              <address1>Friedrichstr. 1</address1>
              <city>Berlin</city>
              <zip>10117</zip>
              <country>DE</country>
            </billing-contact-info>
            <sepa-direct-debit><iban>${iban.replace(/(.{4})/g, '$1 ').trim()}</iban></sepa-direct-debit>
          </sepa-direct-debit-info>
        </sepa-direct-debits-info>
      </payment-info>
    </shopper-info>
  </shopper>
  <order>
    <ordering-shopper>
      ${webInfoXml}
      <authorized-by-shopper>${authorized}</authorized-by-shopper>
    </ordering-shopper>
    <cart>
${items.map(([id, quantity]) => `      <cart-item><sku><sku-id>${id}</sku-id></sku><quantity>${quantity}</quantity></cart-item>`).join('\n')}
    </cart>
    <expected-total-price><amount>${expected}</amount><currency>${currency}</currency></expected-total-price>
${softDescriptor ? `    <soft-descriptor>${softDescriptor}</soft-descriptor>\n` : ''}  </order>
</batch-order>`;
}

const webInfo = {
  ip: '62.219.121.253',
  remoteHost: 'www.example.com',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
};
const contact = {
  title: 'Ms',
  firstName: 'Jane',
  lastName: 'Doe',
  email: 'jane.doe@example.com',
  companyName: 'Doe & Co',
  address1: 'Friedrichstr. 1',
  city: 'Berlin',
  zip: '10117',
  country: 'DE',
  phone: '+49 30 1234567',
  fax: '+49 30 7654321',
};
const billing = {
  firstName: 'Jane',
  lastName: 'Doe',
  address1: 'Friedrichstr. 1',
  city: 'Berlin',
  zip: '10117',
  country: 'DE',
};

/** The same request in JSON. */
function batchJson({
  items,
  expected,
  currency = 'EUR',
  iban = IBAN,
  authorized = 'true',
  softDescriptor,
}: Cart) {
  return {
    shopper: {
      webInfo,
      shopperInfo: {
        storeId: '12345',
        locale: 'en',
        shopperContactInfo: contact,
        paymentInfo: { sepaDirectDebitsInfo: [{ billingContactInfo: billing, sepaDirectDebit: { iban } }] },
      },
    },
    order: {
      orderingShopper: { webInfo, authorizedByShopper: authorized === 'true' },
      cart: { cartItem: items.map(([skuId, quantity]) => ({ sku: { skuId }, quantity })) },
      expectedTotalPrice: { amount: expected, currency },
      ...(softDescriptor ? { softDescriptor } : {}),
    },
  };
}

const xml: CallOptions = { format: 'xml' };
const place = (body: string, options: CallOptions = {}) =>
  api.post('/batch/order-placement', body, { ...xml, ...options });

// ---------------------------------------------------------------------------------------------------------
// Reading XML replies element by element, with fast-xml-parser on its own (not our reader)
// ---------------------------------------------------------------------------------------------------------

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
});

function toElement(entry: Record<string, unknown>): XmlElement | null {
  const name = Object.keys(entry).find((key) => key !== ':@');
  if (name === undefined || name === '#text' || name.startsWith('?')) return null;
  const content = entry[name] as Array<Record<string, unknown>>;
  return {
    name,
    attributes: (entry[':@'] as Record<string, string> | undefined) ?? {},
    children: content.map(toElement).filter((child): child is XmlElement => child !== null),
    text: content.map((part) => (typeof part['#text'] === 'string' ? part['#text'] : '')).join(''),
  };
}

function document(text: string): XmlElement {
  const root = (parser.parse(text) as Array<Record<string, unknown>>).map(toElement).find(Boolean);
  if (!root) throw new Error('no root element');
  return root;
}

/** The element at a path like 'order/cart/cart-item[1]/quantity' (first match unless indexed). */
function at(root: XmlElement, path: string): XmlElement {
  let element = root;
  for (const step of path.split('/')) {
    const [, name, index] = /^([a-z0-9-]+)(?:\[(\d+)\])?$/.exec(step) ?? [];
    const found = element.children.filter((child) => child.name === name)[Number(index ?? 0)];
    if (!found) throw new Error(`no <${step}> in <${element.name}> on the way to ${path}`);
    element = found;
  }
  return element;
}

const textAt = (root: XmlElement, path: string) => at(root, path).text;
const namesAt = (root: XmlElement, path: string) =>
  (path === '' ? root : at(root, path)).children.map((child) => child.name);

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const ddMonYy = (date: Date) =>
  `${String(date.getUTCDate()).padStart(2, '0')}-${months[date.getUTCMonth()]}-${String(date.getUTCFullYear() % 100).padStart(2, '0')}`;

async function merchantNow(merchant: TestMerchant = stack.merchant): Promise<Date> {
  const reply = await api.get('/sandbox/clock', { merchant });
  return new Date(reply.body.now);
}

/** The one error of a failed call. */
function failure(reply: Reply) {
  const [message] = reply.body.message as Array<Record<string, unknown>>;
  const property = message?.invalidProperty as { name?: string; messageValue?: string } | undefined;
  return {
    status: reply.status,
    errorName: message?.errorName,
    code: Number(message?.code),
    property: property?.name,
    messageValue: property?.messageValue,
    description: String(message?.description),
    count: reply.body.message.length,
  };
}

async function count(table: string, merchant: TestMerchant): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from ${table} where merchant_id = $1`,
    [merchant.id],
  );
  return rows[0]?.n ?? Number.NaN;
}

const orderTables = ['shopper', 'shopper_order', 'order_item', 'invoice', 'sepa_mandate', 'sepa_debit'];
const rowCounts = async (merchant: TestMerchant) =>
  Object.fromEntries(
    await Promise.all(orderTables.map(async (table) => [table, await count(table, merchant)])),
  );

async function shopperSequence(): Promise<number> {
  const { rows } = await db.query<{ value: string }>(
    `select last_value::text as value from pg_sequences where schemaname = 'public'
       and sequencename = pg_get_serial_sequence('shopper', 'id')::regclass::text`,
  );
  return Number(rows[0]?.value);
}

// ---------------------------------------------------------------------------------------------------------
// The XML round trip
// ---------------------------------------------------------------------------------------------------------

describe('POST /batch/order-placement in XML', () => {
  let reply: Reply;
  let doc: XmlElement;
  let before: Date;
  let after: Date;

  beforeAll(async () => {
    before = await merchantNow();
    reply = await place(
      batchXml({
        items: [
          [sku.ebook, 2],
          [sku.audiobook, 1],
        ],
        expected: '22.50',
      }),
    );
    after = await merchantNow();
    doc = document(reply.text);
  });

  it('answers 200 with a batch-order document in the namespace', () => {
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/xml');
    expect(
      reply.text.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<batch-order xmlns="http://ws.plimus.com">',
      ),
    ).toBe(true);
    expect(doc.name).toBe('batch-order');
    expect(doc.attributes.xmlns).toBe(NAMESPACE);
    expect(namesAt(doc, '')).toEqual(['shopper', 'order']);
  });

  it('shopper/shopper-info: id, contact echoed, shipping and invoice contacts, store, currency, locale', () => {
    expect(namesAt(doc, 'shopper')).toEqual(['shopper-info']);
    expect(namesAt(doc, 'shopper/shopper-info')).toEqual([
      'shopper-id',
      'shopper-contact-info',
      'shipping-contact-info',
      'invoice-contacts-info',
      'payment-info',
      'store-id',
      'shopper-currency',
      'locale',
    ]);
    expect(textAt(doc, 'shopper/shopper-info/shopper-id')).toMatch(/^\d+$/);
    const contactPath = 'shopper/shopper-info/shopper-contact-info';
    expect(namesAt(doc, contactPath)).toEqual([
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
    expect(textAt(doc, `${contactPath}/title`)).toBe('Ms');
    expect(textAt(doc, `${contactPath}/first-name`)).toBe('Jane');
    expect(textAt(doc, `${contactPath}/last-name`)).toBe('Doe');
    expect(textAt(doc, `${contactPath}/email`)).toBe('jane.doe@example.com');
    expect(textAt(doc, `${contactPath}/company-name`)).toBe('Doe & Co');
    expect(reply.text).toContain('<company-name>Doe &amp; Co</company-name>');
    expect(textAt(doc, `${contactPath}/address1`)).toBe('Friedrichstr. 1');
    expect(textAt(doc, `${contactPath}/city`)).toBe('Berlin');
    expect(textAt(doc, `${contactPath}/zip`)).toBe('10117');
    expect(textAt(doc, `${contactPath}/country`)).toBe('DE');
    expect(textAt(doc, `${contactPath}/phone`)).toBe('+49 30 1234567');
    expect(textAt(doc, `${contactPath}/fax`)).toBe('+49 30 7654321');

    const shipping = 'shopper/shopper-info/shipping-contact-info';
    expect(namesAt(doc, shipping)).toEqual(['first-name', 'last-name', 'address1', 'city', 'zip', 'country']);
    expect(textAt(doc, `${shipping}/country`)).toBe('DE');

    const invoiceContact = 'shopper/shopper-info/invoice-contacts-info/invoice-contact-info';
    expect(namesAt(doc, 'shopper/shopper-info/invoice-contacts-info')).toEqual(['invoice-contact-info']);
    expect(namesAt(doc, invoiceContact)).toEqual(['default', ...namesAt(doc, contactPath)]);
    expect(textAt(doc, `${invoiceContact}/default`)).toBe('true');
    expect(textAt(doc, `${invoiceContact}/email`)).toBe('jane.doe@example.com');

    expect(textAt(doc, 'shopper/shopper-info/store-id')).toBe('12345');
    expect(textAt(doc, 'shopper/shopper-info/shopper-currency')).toBe('EUR');
    expect(textAt(doc, 'shopper/shopper-info/locale')).toBe('en');
  });

  it('shopper/shopper-info/payment-info: cards, ecps, the SEPA account by its first and last four, balance', () => {
    const payment = 'shopper/shopper-info/payment-info';
    expect(namesAt(doc, payment)).toEqual([
      'credit-cards-info',
      'ecps-info',
      'sepa-direct-debits-info',
      'balance',
    ]);
    expect(namesAt(doc, `${payment}/credit-cards-info`)).toEqual([]);
    expect(namesAt(doc, `${payment}/ecps-info`)).toEqual([]);
    expect(reply.text).toContain('<payment-info><credit-cards-info/><ecps-info/><sepa-direct-debits-info>');
    const account = `${payment}/sepa-direct-debits-info/sepa-direct-debit-info`;
    expect(namesAt(doc, `${payment}/sepa-direct-debits-info`)).toEqual(['sepa-direct-debit-info']);
    expect(namesAt(doc, account)).toEqual(['billing-contact-info', 'sepa-direct-debit']);
    expect(namesAt(doc, `${account}/billing-contact-info`)).toEqual([
      'first-name',
      'last-name',
      'address1',
      'city',
      'zip',
      'country',
    ]);
    expect(namesAt(doc, `${account}/sepa-direct-debit`)).toEqual(['iban-first-four', 'iban-last-four']);
    expect(textAt(doc, `${account}/sepa-direct-debit/iban-first-four`)).toBe('DE89');
    expect(textAt(doc, `${account}/sepa-direct-debit/iban-last-four`)).toBe('3000');
    expect(namesAt(doc, `${payment}/balance`)).toEqual(['currency', 'value']);
    expect(textAt(doc, `${payment}/balance/value`)).toBe('0.00');
    expect(textAt(doc, `${payment}/balance/currency`)).toBe('EUR');
  });

  it('order: id, ordering shopper, cart with names and prices from the catalogue', () => {
    expect(namesAt(doc, 'order')).toEqual([
      'order-id',
      'ordering-shopper',
      'cart',
      'post-sale-info',
      'fulfillment',
    ]);
    expect(textAt(doc, 'order/order-id')).toMatch(/^\d+$/);
    expect(textAt(doc, 'order/ordering-shopper/shopper-id')).toBe(
      textAt(doc, 'shopper/shopper-info/shopper-id'),
    );
    expect(namesAt(doc, 'order/cart')).toEqual([
      'charged-currency',
      'cart-item',
      'cart-item',
      'tax',
      'tax-rate',
      'total-cart-cost',
    ]);
    expect(textAt(doc, 'order/cart/charged-currency')).toBe('EUR');
    expect(namesAt(doc, 'order/cart/cart-item')).toEqual(['sku', 'quantity', 'item-sub-total']);
    expect(namesAt(doc, 'order/cart/cart-item/sku')).toEqual(['sku-id', 'sku-name']);
    expect(textAt(doc, 'order/cart/cart-item[0]/sku/sku-id')).toBe(String(sku.ebook));
    expect(textAt(doc, 'order/cart/cart-item[0]/sku/sku-name')).toBe('Books - Ebook');
    expect(textAt(doc, 'order/cart/cart-item[0]/quantity')).toBe('2');
    expect(textAt(doc, 'order/cart/cart-item[0]/item-sub-total')).toBe('20.00');
    expect(textAt(doc, 'order/cart/cart-item[1]/sku/sku-id')).toBe(String(sku.audiobook));
    expect(textAt(doc, 'order/cart/cart-item[1]/sku/sku-name')).toBe('Books - Audiobook');
    expect(textAt(doc, 'order/cart/cart-item[1]/quantity')).toBe('1');
    expect(textAt(doc, 'order/cart/cart-item[1]/item-sub-total')).toBe('2.50');
    expect(textAt(doc, 'order/cart/tax')).toBe('0.00');
    expect(textAt(doc, 'order/cart/tax-rate')).toBe('0');
    expect(textAt(doc, 'order/cart/total-cart-cost')).toBe('22.50');
    expect(namesAt(doc, 'order/fulfillment')).toEqual(['license-keys']);
    expect(namesAt(doc, 'order/fulfillment/license-keys')).toEqual([]);
  });

  it('order/post-sale-info/invoices/invoice: id, url, and a pending financial transaction with the mandate', async () => {
    const orderId = textAt(doc, 'order/order-id');
    expect(namesAt(doc, 'order/post-sale-info')).toEqual(['invoices']);
    expect(namesAt(doc, 'order/post-sale-info/invoices')).toEqual(['invoice']);
    const invoice = 'order/post-sale-info/invoices/invoice';
    expect(namesAt(doc, invoice)).toEqual(['invoice-id', 'url', 'financial-transactions']);
    expect(textAt(doc, `${invoice}/invoice-id`)).toMatch(/^\d+$/);
    expect(textAt(doc, `${invoice}/url`)).toBe(`${origin}/services/2/orders/${orderId}`);
    expect(namesAt(doc, `${invoice}/financial-transactions`)).toEqual(['financial-transaction']);

    const transaction = `${invoice}/financial-transactions/financial-transaction`;
    expect(namesAt(doc, transaction)).toEqual([
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
      'paypal-transaction-data',
      'sepa-direct-debit',
      'invoice-contact-info',
      'skus',
    ]);
    expect(textAt(doc, `${transaction}/status`)).toBe('PENDING');
    const created = textAt(doc, `${transaction}/date-created`);
    expect([ddMonYy(before), ddMonYy(after)]).toContain(created);
    // The sandbox bank answers 120 s after submission (SEPA_SANDBOX_SETTLE_SECONDS).
    expect([
      ddMonYy(new Date(before.getTime() + 120_000)),
      ddMonYy(new Date(after.getTime() + 120_000)),
    ]).toContain(textAt(doc, `${transaction}/date-due`));
    expect(textAt(doc, `${transaction}/amount`)).toBe('22.50');
    expect(textAt(doc, `${transaction}/tax`)).toBe('0.00');
    expect(textAt(doc, `${transaction}/tax-rate`)).toBe('0');
    expect(textAt(doc, `${transaction}/currency`)).toBe('EUR');
    expect(textAt(doc, `${transaction}/soft-descriptor`)).toBe('PAYWIRE');
    expect(textAt(doc, `${transaction}/payment-method`)).toBe('SEPA Direct Debit');
    expect(textAt(doc, `${transaction}/target-balance`)).toBe('PLIMUS_ACCOUNT');
    expect(namesAt(doc, `${transaction}/paypal-transaction-data`)).toEqual([]);
    expect(reply.text).toContain('<paypal-transaction-data/>');

    const debit = `${transaction}/sepa-direct-debit`;
    expect(namesAt(doc, debit)).toEqual([
      'iban-first-four',
      'iban-last-four',
      'mandate-id',
      'mandate-date',
      'pre-notification-text',
      'pre-notification-translation-ref',
    ]);
    expect(textAt(doc, `${debit}/iban-first-four`)).toBe('DE89');
    expect(textAt(doc, `${debit}/iban-last-four`)).toBe('3000');
    const mandateId = textAt(doc, `${debit}/mandate-id`);
    expect(mandateId).toMatch(/^[A-Z0-9]{8,35}$/);
    expect(textAt(doc, `${debit}/mandate-date`)).toBe(created);
    const text = textAt(doc, `${debit}/pre-notification-text`);
    expect(text).toContain('22.50');
    expect(text).toContain(mandateId);
    expect(text).toContain('3000');
    const ref = textAt(doc, `${debit}/pre-notification-translation-ref`);
    const prefix = `${origin}/services/2/translations/sepa/prenotification?transactionid=`;
    expect(ref.startsWith(prefix)).toBe(true);
    const transactionId = ref.slice(prefix.length);
    expect(transactionId).toMatch(/^\d+$/);

    // The link works, and names the debit the SEPA service keeps.
    const translations = await fetch(ref, { headers: { authorization: stack.merchant.authorization } });
    expect(translations.status).toBe(200);
    const { translations: texts } = (await translations.json()) as {
      translations: Array<{ language: string; translationText: string }>;
    };
    const english = texts.find((t) => t.language === 'en');
    expect(english?.translationText).toBe(text);
    const alt = await api.get(`/alt-transactions/${transactionId}`);
    expect(alt.status, alt.text).toBe(200);
    expect(alt.body.sepaDirectDebitTransaction.mandateId).toBe(mandateId);
    expect(alt.body.amount).toBe(22.5);
    expect(alt.body.vaultedShopperId).toBe(Number(textAt(doc, 'shopper/shopper-info/shopper-id')));
    expect(alt.body.processingInfo.processingStatus).toBe('PENDING');

    expect(namesAt(doc, `${transaction}/invoice-contact-info`)).toEqual(
      namesAt(doc, 'shopper/shopper-info/shopper-contact-info'),
    );
    expect(textAt(doc, `${transaction}/invoice-contact-info/last-name`)).toBe('Doe');
    expect(namesAt(doc, `${transaction}/skus`)).toEqual(['sku', 'sku']);
    expect(namesAt(doc, `${transaction}/skus/sku`)).toEqual(['sku-id']);
    expect(textAt(doc, `${transaction}/skus/sku[0]/sku-id`)).toBe(String(sku.ebook));
    expect(textAt(doc, `${transaction}/skus/sku[1]/sku-id`)).toBe(String(sku.audiobook));
  });

  it('never shows the IBAN, nor logs it', () => {
    expect(reply.text).not.toContain(IBAN);
    expect(reply.text).not.toContain(IBAN.slice(4, 18));
    expect(stack.logs.join('\n')).not.toContain(IBAN);
  });

  it('GET /orders/{id} and GET /shoppers/{id} in XML carry exactly the batch elements', async () => {
    const orderId = textAt(doc, 'order/order-id');
    const shopperId = textAt(doc, 'shopper/shopper-info/shopper-id');
    const inner = (text: string, root: string) => {
      const match = new RegExp(`<${root}(?: xmlns="[^"]*")?>([\\s\\S]*)</${root}>`).exec(text);
      return match?.[1];
    };
    const order = await api.get(`/orders/${orderId}`, { accept: 'application/xml' });
    expect(order.status, order.text).toBe(200);
    expect(
      order.text.startsWith(`<?xml version="1.0" encoding="UTF-8"?>\n<order xmlns="${NAMESPACE}"><order-id>`),
    ).toBe(true);
    expect(inner(order.text, 'order')).toBe(inner(reply.text, 'order'));
    const shopper = await api.get(`/shoppers/${shopperId}`, { accept: 'application/xml' });
    expect(shopper.status, shopper.text).toBe(200);
    expect(
      shopper.text.startsWith(
        `<?xml version="1.0" encoding="UTF-8"?>\n<shopper xmlns="${NAMESPACE}"><shopper-info>`,
      ),
    ).toBe(true);
    expect(inner(shopper.text, 'shopper')).toBe(inner(reply.text, 'shopper'));
  });
});

// ---------------------------------------------------------------------------------------------------------
// JSON, GETs, settlement
// ---------------------------------------------------------------------------------------------------------

describe('JSON, reads and the debit settling', () => {
  it('speaks JSON too: numbers, arrays for repeated elements, the same content', async () => {
    const reply = await api.post(
      '/batch/order-placement',
      batchJson({ items: [[sku.audiobook, 3]], expected: '7.5', softDescriptor: 'SHOP*ORDER 17' }),
    );
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/json');
    const { shopper, order } = reply.body;
    const shopperId = shopper.shopperInfo.shopperId;
    expect(Number.isInteger(shopperId)).toBe(true);
    expect(shopper).toEqual({
      shopperInfo: {
        shopperId,
        shopperContactInfo: contact,
        shippingContactInfo: billing,
        invoiceContactsInfo: [{ default: true, ...contact }],
        paymentInfo: {
          creditCardsInfo: [],
          ecpsInfo: [],
          sepaDirectDebitsInfo: [
            { billingContactInfo: billing, sepaDirectDebit: { ibanFirstFour: 'DE89', ibanLastFour: '3000' } },
          ],
          balance: { currency: 'EUR', value: 0 },
        },
        storeId: '12345',
        shopperCurrency: 'EUR',
        locale: 'en',
      },
    });
    const invoice = order.postSaleInfo.invoices[0];
    const transaction = invoice.financialTransactions[0];
    expect(order).toEqual({
      orderId: order.orderId,
      orderingShopper: { shopperId },
      cart: {
        chargedCurrency: 'EUR',
        cartItem: [
          { sku: { skuId: sku.audiobook, skuName: 'Books - Audiobook' }, quantity: 3, itemSubTotal: 7.5 },
        ],
        tax: 0,
        taxRate: 0,
        totalCartCost: 7.5,
      },
      postSaleInfo: {
        invoices: [
          {
            invoiceId: invoice.invoiceId,
            url: `${origin}/services/2/orders/${order.orderId}`,
            financialTransactions: [
              {
                status: 'PENDING',
                dateDue: transaction.dateDue,
                dateCreated: transaction.dateCreated,
                amount: 7.5,
                tax: 0,
                taxRate: 0,
                currency: 'EUR',
                softDescriptor: 'SHOP*ORDER 17',
                paymentMethod: 'SEPA Direct Debit',
                targetBalance: 'PLIMUS_ACCOUNT',
                paypalTransactionData: {},
                sepaDirectDebit: {
                  ibanFirstFour: 'DE89',
                  ibanLastFour: '3000',
                  mandateId: transaction.sepaDirectDebit.mandateId,
                  mandateDate: transaction.dateCreated,
                  preNotificationText: transaction.sepaDirectDebit.preNotificationText,
                  preNotificationTranslationRef: transaction.sepaDirectDebit.preNotificationTranslationRef,
                },
                invoiceContactInfo: contact,
                skus: [{ skuId: sku.audiobook }],
              },
            ],
          },
        ],
      },
      fulfillment: { licenseKeys: [] },
    });
    expect(Number.isInteger(order.orderId) && Number.isInteger(invoice.invoiceId)).toBe(true);
    expect(transaction.dateCreated).toMatch(/^\d{2}-[A-Z][a-z]{2}-\d{2}$/);

    // GET in JSON: the order and the shopper as the batch answered them.
    const gotOrder = await api.get(`/orders/${order.orderId}`);
    expect(gotOrder.status, gotOrder.text).toBe(200);
    expect(gotOrder.body).toEqual(order);
    const gotShopper = await api.get(`/shoppers/${shopperId}`);
    expect(gotShopper.status, gotShopper.text).toBe(200);
    expect(gotShopper.body).toEqual(shopper);
  });

  it("the financial transaction follows the debit: PENDING, then SUCCESS once the merchant's clock passes the due date", async () => {
    const merchant = await stack.newMerchant();
    const [skuId] = await createSkus(merchant, [['Course', '49.00', 'EUR']]);
    const placed = await place(batchXml({ items: [[skuId ?? 0, 1]], expected: '49.00' }), { merchant });
    expect(placed.status, placed.text).toBe(200);
    const orderId = textAt(document(placed.text), 'order/order-id');
    const statusPath = 'post-sale-info/invoices/invoice/financial-transactions/financial-transaction/status';
    const readStatus = async () =>
      textAt(
        document((await api.get(`/orders/${orderId}`, { merchant, accept: 'application/xml' })).text),
        statusPath,
      );
    expect(await readStatus()).toBe('PENDING');

    expect((await api.put('/sandbox/clock', { advanceBy: 'PT5M' }, { merchant })).status).toBe(200);
    let status = await readStatus();
    for (let attempt = 0; attempt < 50 && status === 'PENDING'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = await readStatus();
    }
    expect(status).toBe('SUCCESS');
    const json = await api.get(`/orders/${orderId}`, { merchant });
    expect(json.body.postSaleInfo.invoices[0].financialTransactions[0].status).toBe('SUCCESS');
    expect(json.body.cart.totalCartCost).toBe(49);
  });

  it('a debit the bank refuses shows FAIL', async () => {
    const merchant = await stack.newMerchant();
    const [skuId] = await createSkus(merchant, [['Course', '12.00', 'EUR']]);
    const placed = await api.post(
      '/batch/order-placement',
      batchJson({ items: [[skuId ?? 0, 1]], expected: '12', iban: FAILING_IBAN }),
      {
        merchant,
      },
    );
    expect(placed.status, placed.text).toBe(200);
    const { orderId } = placed.body.order;
    expect((await api.put('/sandbox/clock', { advanceBy: 'PT5M' }, { merchant })).status).toBe(200);
    let status = 'PENDING';
    for (let attempt = 0; attempt < 50 && status === 'PENDING'; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await api.get(`/orders/${orderId}`, { merchant })).body.postSaleInfo.invoices[0]
        .financialTransactions[0].status;
    }
    expect(status).toBe('FAIL');
  });

  it("another merchant's order and shopper are 404, like unknown ones; ids that are no number 400", async () => {
    const placed = await api.post(
      '/batch/order-placement',
      batchJson({ items: [[sku.ebook, 1]], expected: '10.00' }),
    );
    expect(placed.status, placed.text).toBe(200);
    const { orderId } = placed.body.order;
    const { shopperId } = placed.body.shopper.shopperInfo;
    const other = await stack.newMerchant();
    expect(failure(await api.get(`/orders/${orderId}`, { merchant: other }))).toMatchObject({
      status: 404,
      errorName: 'RESOURCE_NOT_FOUND',
    });
    expect(failure(await api.get('/orders/999999999'))).toMatchObject({
      status: 404,
      errorName: 'RESOURCE_NOT_FOUND',
    });
    expect(failure(await api.get(`/shoppers/${shopperId}`, { merchant: other }))).toMatchObject({
      status: 404,
      errorName: 'SHOPPER_NOT_FOUND',
    });
    expect(failure(await api.get('/shoppers/999999999'))).toMatchObject({
      status: 404,
      errorName: 'SHOPPER_NOT_FOUND',
    });
    expect(failure(await api.get('/orders/abc'))).toMatchObject({ status: 400, property: 'orderId' });
    expect(failure(await api.get('/shoppers/abc'))).toMatchObject({ status: 400, property: 'shopperId' });
    // Another merchant cannot order this merchant's skus either.
    const foreign = await api.post(
      '/batch/order-placement',
      batchJson({ items: [[sku.ebook, 1]], expected: '10.00' }),
      { merchant: other },
    );
    expect(failure(foreign)).toMatchObject({ status: 400, property: 'order.cart.cartItem.0.sku.skuId' });
    expect(await rowCounts(other)).toEqual(Object.fromEntries(orderTables.map((table) => [table, 0])));
  });

  it('a shopper made by a card sale reads in the batch shape, its card under credit-cards-info', async () => {
    const sale = await api.post('/transactions', {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 5,
      currency: 'USD',
      cardHolderInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139' },
      creditCard: {
        cardNumber: '4263982640269299',
        securityCode: '837',
        expirationMonth: '02',
        expirationYear: '2031',
      },
    });
    expect(sale.status, sale.text).toBe(200);
    const shopper = await api.get(`/shoppers/${sale.body.vaultedShopperId}`, { accept: 'application/xml' });
    expect(shopper.status, shopper.text).toBe(200);
    const doc = document(shopper.text);
    expect(textAt(doc, 'shopper-info/shopper-contact-info/first-name')).toBe('Ada');
    const card = 'shopper-info/payment-info/credit-cards-info/credit-card-info/credit-card';
    expect(textAt(doc, `${card}/card-last-four-digits`)).toBe('9299');
    expect(textAt(doc, `${card}/card-type`)).toBe('VISA');
    expect(namesAt(doc, 'shopper-info/payment-info/sepa-direct-debits-info')).toEqual([]);
    expect(shopper.text).not.toContain('4263982640269299');
  });
});

// ---------------------------------------------------------------------------------------------------------
// Refusals, atomicity, idempotency
// ---------------------------------------------------------------------------------------------------------

describe('refusals', () => {
  it('an unknown sku: 400 naming the cart item', async () => {
    const reply = await place(
      batchXml({
        items: [
          [sku.ebook, 1],
          [999_999_999, 1],
        ],
        expected: '20.00',
      }),
    );
    expect(failure(reply)).toMatchObject({
      status: 400,
      errorName: 'VALIDATION_GENERAL_FAILURE',
      code: 10001,
      property: 'order.cart.cartItem.1.sku.skuId',
      messageValue: '999999999',
    });
    expect(reply.headers.get('content-type')).toContain('application/xml');
    expect(reply.text).toContain('<messages xmlns="http://ws.plimus.com"><message><error-name>');
  });

  it("a sku that is not active, a product that is not, a quantity its sku's policy refuses: 400 naming it", async () => {
    const { productId } = await createCatalogue(api, 'Policies', []);
    const make = async (overrides: Record<string, unknown>) =>
      createdId(
        await api.post('/catalog/skus', { ...skuRequest(productId, 'S', '1.00', 'EUR'), ...overrides }),
      );
    const inactive = await make({ skuStatus: 'I' });
    const deleted = await make({ skuStatus: 'D' });
    const atLeastTwo = await make({ skuQuantityPolicy: { minimumQuantity: 2 } });
    const fixedThree = await make({ skuQuantityPolicy: { allowQuantityChange: false, minimumQuantity: 3 } });
    const orders = await count('shopper_order', stack.merchant);
    const refused = async (items: Array<[number, number]>, expected: string, property: string) => {
      const reply = await place(batchXml({ items, expected }));
      expect(failure(reply), reply.text).toMatchObject({ status: 400, code: 10001, property });
    };
    const skuOf = 'order.cart.cartItem.0.sku.skuId';
    await refused([[inactive, 1]], '1.00', skuOf);
    await refused([[deleted, 1]], '1.00', skuOf);
    await refused([[atLeastTwo, 1]], '1.00', 'order.cart.cartItem.0.quantity');
    await refused([[fixedThree, 4]], '4.00', 'order.cart.cartItem.0.quantity');
    expect(await count('shopper_order', stack.merchant)).toBe(orders);
    // the policies allow what they say, and a product made inactive takes its skus off sale
    expect(
      (
        await place(
          batchXml({
            items: [
              [atLeastTwo, 2],
              [fixedThree, 3],
            ],
            expected: '5.00',
          }),
        )
      ).status,
    ).toBe(200);
    const product = (await api.get(`/catalog/products/${productId}`)).body;
    const { productId: _id, productSkus: _skus, ...fields } = product;
    expect((await api.put(`/catalog/products/${productId}`, { ...fields, productStatus: 'I' })).status).toBe(
      204,
    );
    await refused([[atLeastTwo, 2]], '2.00', skuOf);
  });

  it('an expected total that is not the cart total: 400 naming expected-total-price', async () => {
    const reply = await place(batchXml({ items: [[sku.ebook, 2]], expected: '19.99' }));
    expect(failure(reply)).toMatchObject({
      status: 400,
      errorName: 'VALIDATION_GENERAL_FAILURE',
      property: 'order.expectedTotalPrice.amount',
      messageValue: '19.99',
    });
    expect(failure(reply).description).toContain('20.00');
  });

  it('an invalid IBAN: 400 naming the property, without echoing the IBAN', async () => {
    const bad = 'DE89370400440532013009';
    const reply = await place(batchXml({ items: [[sku.ebook, 1]], expected: '10.00', iban: bad }));
    expect(failure(reply)).toMatchObject({
      status: 400,
      property: 'shopper.shopperInfo.paymentInfo.sepaDirectDebitsInfo.0.sepaDirectDebit.iban',
      messageValue: '', // the schema requires <message-value>: written empty, never the IBAN
    });
    expect(reply.text).not.toContain('3704 0044');
    expect(reply.text).not.toContain('370400440532013009');
    const unsupported = await place(
      batchXml({ items: [[sku.ebook, 1]], expected: '10.00', iban: 'GB82WEST12345698765432' }),
    );
    expect(failure(unsupported)).toMatchObject({ status: 400, property: failure(reply).property });
  });

  it('a locale longer than the shopper record keeps: 400 naming it, not a 500', async () => {
    const reply = await place(
      batchXml({ items: [[sku.ebook, 1]], expected: '10.00' }).replace(
        '<locale>en</locale>',
        '<locale>eng_abcdefgh</locale>',
      ),
    );
    expect(failure(reply)).toMatchObject({ status: 400, property: 'shopper.shopperInfo.locale' });
  });

  it('an IBAN sent in place of its element: 400, never echoed', async () => {
    const reply = await place(
      batchXml({ items: [[sku.ebook, 1]], expected: '10.00' }).replace(
        /<sepa-direct-debit>[\s\S]*?<\/sepa-direct-debit>/,
        '<sepa-direct-debit>NL91ABNA0417164300</sepa-direct-debit>',
      ),
    );
    expect(failure(reply).status).toBe(400);
    expect(reply.text).not.toContain('NL91ABNA0417164300');
  });

  it('authorized-by-shopper false: 400', async () => {
    const reply = await place(batchXml({ items: [[sku.ebook, 1]], expected: '10.00', authorized: 'false' }));
    expect(failure(reply)).toMatchObject({
      status: 400,
      property: 'order.orderingShopper.authorizedByShopper',
    });
  });

  it('a sku priced in another currency than EUR: 400 saying SEPA takes EUR only', async () => {
    const reply = await place(batchXml({ items: [[sku.usEdition, 1]], expected: '5.00' }));
    expect(failure(reply)).toMatchObject({ status: 400, property: 'order.cart.cartItem.0.sku.skuId' });
    expect(failure(reply).description).toContain('USD');
    expect(failure(reply).description).toContain('EUR');
    const usd = await place(batchXml({ items: [[sku.ebook, 1]], expected: '10.00', currency: 'USD' }));
    expect(failure(usd)).toMatchObject({ status: 400, property: 'order.expectedTotalPrice.currency' });
  });

  it('a document that is not a batch-order, or misses its parts: 400', async () => {
    expect(failure(await place(`<order xmlns="${NAMESPACE}"/>`))).toMatchObject({
      status: 400,
      property: 'body',
    });
    const noCart = batchXml({ items: [[sku.ebook, 1]], expected: '10.00' }).replace(
      /<cart>[\s\S]*<\/cart>/,
      '',
    );
    expect(failure(await place(noCart))).toMatchObject({ status: 400, property: 'order.cart' });
    const strayInWrapper = batchXml({ items: [[sku.ebook, 1]], expected: '10.00' }).replace(
      '<sepa-direct-debits-info>',
      '<sepa-direct-debits-info><iban>x</iban>',
    );
    expect(failure(await place(strayInWrapper))).toMatchObject({
      status: 400,
      property: 'shopper.shopperInfo.paymentInfo.sepaDirectDebitsInfo',
    });
  });
});

describe('one transaction per order', () => {
  it('a cart item failing after the shopper and order rows were written leaves no row behind', async () => {
    const merchant = await stack.newMerchant();
    const [skuId = 0] = await createSkus(merchant, [['Ticket', '30.00', 'EUR']]);
    const none = Object.fromEntries(orderTables.map((table) => [table, 0]));
    expect(await rowCounts(merchant)).toEqual(none);

    const sequence = await shopperSequence();
    const unknownSecond = await place(
      batchXml({
        items: [
          [skuId, 1],
          [skuId + 999_999, 1],
        ],
        expected: '60.00',
      }),
      { merchant },
    );
    expect(failure(unknownSecond)).toMatchObject({
      status: 400,
      property: 'order.cart.cartItem.1.sku.skuId',
    });
    // The shopper row was inserted (its identity was drawn) and then rolled back with everything else.
    expect(await shopperSequence()).toBeGreaterThan(sequence);
    expect(await rowCounts(merchant)).toEqual(none);

    const wrongTotal = await place(batchXml({ items: [[skuId, 2]], expected: '30.00' }), { merchant });
    expect(failure(wrongTotal)).toMatchObject({ status: 400, property: 'order.expectedTotalPrice.amount' });
    expect(await rowCounts(merchant)).toEqual(none);

    const placed = await place(batchXml({ items: [[skuId, 2]], expected: '60.00' }), { merchant });
    expect(placed.status, placed.text).toBe(200);
    expect(await rowCounts(merchant)).toEqual({
      shopper: 1,
      shopper_order: 1,
      order_item: 1,
      invoice: 1,
      sepa_mandate: 1,
      sepa_debit: 1,
    });
  });
});

describe('Idempotency-Key', () => {
  it('a retry with the same key answers the identical body and places one order', async () => {
    const merchant = await stack.newMerchant();
    const [skuId = 0] = await createSkus(merchant, [['Ticket', '30.00', 'EUR']]);
    const key = randomUUID();
    const body = batchXml({ items: [[skuId, 1]], expected: '30.00' });
    const options: CallOptions = { merchant, headers: { 'idempotency-key': key } };
    const first = await place(body, options);
    expect(first.status, first.text).toBe(200);
    const again = await place(body, options);
    expect(again.status, again.text).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotency-key')).toBe(key);
    expect(await count('shopper_order', merchant)).toBe(1);
    expect(await count('shopper', merchant)).toBe(1);
    expect(await count('sepa_debit', merchant)).toBe(1);

    // A refusal is kept too, and the key with another body is 422.
    const refusedKey = randomUUID();
    const refused = batchXml({ items: [[skuId, 1]], expected: '31.00' });
    const refusedOptions: CallOptions = { merchant, headers: { 'idempotency-key': refusedKey } };
    const firstRefusal = await place(refused, refusedOptions);
    expect(firstRefusal.status).toBe(400);
    expect((await place(refused, refusedOptions)).text).toBe(firstRefusal.text);
    expect(failure(await place(body, refusedOptions))).toMatchObject({ status: 422, code: 60101 });
    expect(await count('shopper_order', merchant)).toBe(1);

    // Without a key the same body places a second order, for a second shopper.
    expect((await place(body, { merchant })).status).toBe(200);
    expect(await count('shopper_order', merchant)).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Sku parameters: a cart item's values of the merchant's custom parameters (docs/conformance.md, Extended API)
// ---------------------------------------------------------------------------------------------------------

describe('sku parameters of a batch order', () => {
  it('are taken in XML and JSON, kept with the item and answered; a bad one leaves no row behind', async () => {
    const merchant = await stack.newMerchant();
    const [skuId = 0] = await createSkus(merchant, [['Ticket', '30.00', 'EUR']]);
    const parameter = await api.post(
      '/catalog/custom-parameters',
      {
        customParamTitle: 'Seat',
        mandatory: true,
        customParamSettings: { customParamType: 'LONG-TEXT', longTextType: { maximumLength: 5 } },
      },
      { merchant },
    );
    expect(parameter.status, parameter.text).toBe(201);

    const withSeat = (seat: string) =>
      batchXml({ items: [[skuId, 1]], expected: '30.00' }).replace(
        '</quantity>',
        `</quantity><sku-parameter><param-name>Seat</param-name><param-value>${seat}</param-value></sku-parameter>`,
      );
    const inXml = await place(withSeat('A12'), { merchant });
    expect(inXml.status, inXml.text).toBe(200);
    expect(inXml.text).toContain(
      '<quantity>1</quantity><sku-parameter><param-name>Seat</param-name><param-value>A12</param-value>' +
        '</sku-parameter><item-sub-total>30.00</item-sub-total>',
    );

    const json = batchJson({ items: [[skuId, 1]], expected: '30.00' });
    const [item] = json.order.cart.cartItem;
    const inJson = await api.post(
      '/batch/order-placement',
      {
        ...json,
        order: {
          ...json.order,
          cart: { cartItem: [{ ...item, skuParameter: [{ paramName: 'seat', paramValue: 'B7' }] }] },
        },
      },
      { merchant },
    );
    expect(inJson.status, inJson.text).toBe(200);
    const read = await api.get(`/orders/${inJson.body.order.orderId}`, { merchant });
    expect(read.body.cart.cartItem[0].skuParameter).toEqual([{ paramName: 'Seat', paramValue: 'B7' }]);

    const placed = await rowCounts(merchant);
    for (const [body, property] of [
      [withSeat('TOO LONG'), 'order.cart.cartItem.0.skuParameter.0.paramValue'],
      [batchXml({ items: [[skuId, 1]], expected: '30.00' }), 'order.cart.cartItem.0.skuParameter'],
    ] as const) {
      expect(failure(await place(body, { merchant }))).toMatchObject({
        status: 400,
        errorName: 'VALIDATION_GENERAL_FAILURE',
        property,
      });
    }
    expect(await rowCounts(merchant)).toEqual(placed);
  });
});

describe('paid by ECP (docs/ach.md, Batch orders)', () => {
  const ACCOUNT = '1234567890';
  const ROUTING = '011000015';
  const ecp = { accountNumber: ACCOUNT, routingNumber: ROUTING, accountType: 'CONSUMER_CHECKING' };
  const shownEcp = {
    accountType: 'CONSUMER_CHECKING',
    publicAccountNumber: '*****7890',
    publicRoutingNumber: '*****0015',
  };

  /** The batch order in JSON, paid from a US account in USD unless told otherwise. */
  function ecpJson(
    cart: Cart,
    paymentInfo: Record<string, unknown> = { ecpsInfo: [{ billingContactInfo: billing, ecp }] },
  ) {
    const body = batchJson({ currency: 'USD', ...cart });
    return {
      ...body,
      shopper: { ...body.shopper, shopperInfo: { ...body.shopper.shopperInfo, paymentInfo } },
    };
  }

  /** The batch order in XML, its sepa-direct-debits-info replaced by the account in ecps-info. */
  const ecpXml = (cart: Cart, account: Record<string, string> = ecp) =>
    batchXml({ currency: 'USD', ...cart }).replace(
      /<sepa-direct-debits-info>[\s\S]*<\/sepa-direct-debits-info>/,
      `<ecps-info><ecp-info><billing-contact-info><first-name>Jane</first-name><last-name>Doe</last-name></billing-contact-info><ecp>${Object.entries(
        account,
      )
        .map(([name, value]) => {
          const element = name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
          return `<${element}>${value}</${element}>`;
        })
        .join('')}</ecp></ecp-info></ecps-info>`,
    );

  /** The order with its ordering shopper naming an account (order.xsd's ordering-shopper ecp, sepa-direct-debit). */
  const ordering = <T extends { order: { orderingShopper: object } }>(
    body: T,
    account: Record<string, unknown>,
  ) => ({
    ...body,
    order: { ...body.order, orderingShopper: { ...body.order.orderingShopper, ...account } },
  });

  it("takes an ordering shopper naming the payment info's account, whole or masked, in XML and JSON", async () => {
    const merchant = await stack.newMerchant();
    const [skuId = 0] = await createSkus(merchant, [['US course', '5.00', 'USD']]);
    const masked = ordering(ecpJson({ items: [[skuId, 1]], expected: '5.00' }), {
      ecp: { publicAccountNumber: '*****7890', accountType: 'CONSUMER_CHECKING' },
    });
    const json = await api.post('/batch/order-placement', masked, { merchant });
    expect(json.status, json.text).toBe(200);
    const xml = ecpXml({ items: [[skuId, 1]], expected: '5.00' }).replace(
      '<ordering-shopper>',
      `<ordering-shopper><ecp><account-number>${ACCOUNT}</account-number><routing-number>${ROUTING}</routing-number></ecp>`,
    );
    const placed = await place(xml, { merchant });
    expect(placed.status, placed.text).toBe(200);
    expect(placed.text).not.toContain(ACCOUNT);
    // A SEPA order's ordering shopper names its IBAN: the payment info's passes, another is refused unechoed.
    const [euroSku = 0] = await createSkus(merchant, [['EU course', '5.00', 'EUR']]);
    const sepaOrder = (iban: string) =>
      ordering(batchJson({ items: [[euroSku, 1]], expected: '5.00' }), { sepaDirectDebit: { iban } });
    expect((await api.post('/batch/order-placement', sepaOrder(IBAN), { merchant })).status).toBe(200);
    const other = await api.post('/batch/order-placement', sepaOrder(FAILING_IBAN), { merchant });
    expect(failure(other)).toMatchObject({ status: 400, property: 'order.orderingShopper.sepaDirectDebit' });
    expect(other.text).not.toContain(FAILING_IBAN);
  });

  const transactionOf = (order: {
    postSaleInfo: { invoices: Array<{ financialTransactions: unknown[] }> };
  }) => order.postSaleInfo.invoices[0]?.financialTransactions[0] as Record<string, unknown>;

  it('places the order as an ACH debit in USD, shown masked, settled by the merchant clock (JSON)', async () => {
    const merchant = await stack.newMerchant();
    const [skuId = 0] = await createSkus(merchant, [['US course', '12.50', 'USD']]);
    const reply = await api.post(
      '/batch/order-placement',
      ecpJson({ items: [[skuId, 2]], expected: '25.00' }),
      {
        merchant,
      },
    );
    expect(reply.status, reply.text).toBe(200);
    expect(reply.text).not.toContain(ACCOUNT);
    const { shopper, order } = reply.body;
    expect(shopper.shopperInfo).toMatchObject({
      shopperCurrency: 'USD',
      paymentInfo: {
        creditCardsInfo: [],
        ecpsInfo: [{ billingContactInfo: billing, ecp: shownEcp }],
        sepaDirectDebitsInfo: [],
        balance: { currency: 'USD', value: 0 },
      },
    });
    expect(order.cart).toMatchObject({ chargedCurrency: 'USD', totalCartCost: 25 });
    const transaction = transactionOf(order);
    expect(transaction).toMatchObject({
      status: 'PENDING',
      amount: 25,
      currency: 'USD',
      paymentMethod: 'ECP',
      ecp: shownEcp,
    });
    expect(transaction.sepaDirectDebit).toBeUndefined();
    const { rows } = await db.query(
      `select d.currency, d.amount_minor::int as amount, m.scheme from sepa_debit d
       join sepa_mandate m on m.id = d.mandate_id where d.merchant_id = $1`,
      [merchant.id],
    );
    expect(rows).toEqual([{ currency: 'USD', amount: 2500, scheme: 'ACH' }]);
    expect((await api.get(`/shoppers/${shopper.shopperInfo.shopperId}`, { merchant })).body).toEqual(shopper);

    expect((await api.put('/sandbox/clock', { advanceBy: 'PT5M' }, { merchant })).status).toBe(200);
    const settled = await waitFor('the ECP order collected', async () => {
      const got = (await api.get(`/orders/${order.orderId}`, { merchant })).body;
      return transactionOf(got).status === 'SUCCESS' && got;
    });
    expect(transactionOf(settled)).toMatchObject({ paymentMethod: 'ECP', ecp: shownEcp });
  });

  it('reads and answers ecps-info and the financial transaction’s ecp in XML', async () => {
    const merchant = await stack.newMerchant();
    const [skuId = 0] = await createSkus(merchant, [['US ebook', '9.99', 'USD']]);
    const reply = await place(ecpXml({ items: [[skuId, 1]], expected: '9.99' }), { merchant });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.text).not.toContain(ACCOUNT);
    const doc = document(reply.text);
    const shownXml =
      '<ecp><account-type>CONSUMER_CHECKING</account-type><public-account-number>*****7890</public-account-number><public-routing-number>*****0015</public-routing-number></ecp>';
    expect(namesAt(doc, 'shopper/shopper-info/payment-info/ecps-info/ecp-info')).toEqual([
      'billing-contact-info',
      'ecp',
    ]);
    expect(reply.text).toContain(shownXml);
    const transaction = 'order/post-sale-info/invoices/invoice/financial-transactions/financial-transaction';
    expect(textAt(doc, `${transaction}/payment-method`)).toBe('ECP');
    expect(textAt(doc, `${transaction}/currency`)).toBe('USD');
    expect(namesAt(doc, transaction)).toContain('ecp');
    expect(namesAt(doc, transaction)).not.toContain('sepa-direct-debit');
    const orderId = textAt(doc, 'order/order-id');
    const got = await api.get(`/orders/${orderId}`, { merchant, accept: 'application/xml' });
    expect(got.status, got.text).toBe(200);
    expect(
      textAt(
        document(got.text),
        'post-sale-info/invoices/invoice/financial-transactions/financial-transaction/payment-method',
      ),
    ).toBe('ECP');
  });

  it('refuses bad ECP orders with the property named, nothing stored', async () => {
    const merchant = await stack.newMerchant();
    const [usd = 0] = await createSkus(merchant, [['US course', '5.00', 'USD']]);
    const [eur = 0] = await createSkus(merchant, [['EU course', '5.00', 'EUR']]);
    const before = await rowCounts(merchant);
    const post = (body: unknown) => api.post('/batch/order-placement', body, { merchant });
    const cases: Array<[string, Promise<Reply>, string]> = [
      [
        'a routing number failing the ABA check',
        post(
          ecpJson(
            { items: [[usd, 1]], expected: '5.00' },
            { ecpsInfo: [{ ecp: { ...ecp, routingNumber: '011000016' } }] },
          ),
        ),
        'shopper.shopperInfo.paymentInfo.ecpsInfo.0.ecp.routingNumber',
      ],
      [
        'an unknown account type (XML)',
        place(ecpXml({ items: [[usd, 1]], expected: '5.00' }, { ...ecp, accountType: 'SAVINGS' }), {
          merchant,
        }),
        'shopper.shopperInfo.paymentInfo.ecpsInfo.0.ecp.accountType',
      ],
      [
        'euros for an ECP order',
        post(ecpJson({ items: [[eur, 1]], expected: '5.00', currency: 'EUR' })),
        'order.expectedTotalPrice.currency',
      ],
      [
        'a euro sku in a dollar order',
        post(ecpJson({ items: [[eur, 1]], expected: '5.00' })),
        'order.cart.cartItem.0.sku.skuId',
      ],
      [
        'two accounts',
        post(
          ecpJson(
            { items: [[usd, 1]], expected: '5.00' },
            { ecpsInfo: [{ ecp }], sepaDirectDebitsInfo: [{ sepaDirectDebit: { iban: IBAN } }] },
          ),
        ),
        'shopper.shopperInfo.paymentInfo.ecpsInfo',
      ],
      [
        'no account',
        post(ecpJson({ items: [[usd, 1]], expected: '5.00' }, {})),
        'shopper.shopperInfo.paymentInfo.sepaDirectDebitsInfo',
      ],
      [
        "an ordering shopper naming another account than the payment info's",
        post(
          ordering(ecpJson({ items: [[usd, 1]], expected: '5.00' }), {
            ecp: { publicAccountNumber: '*****1111' },
          }),
        ),
        'order.orderingShopper.ecp',
      ],
      [
        'an ordering shopper naming a SEPA account for an ECP order',
        post(ordering(ecpJson({ items: [[usd, 1]], expected: '5.00' }), { sepaDirectDebit: { iban: IBAN } })),
        'order.orderingShopper.sepaDirectDebit',
      ],
      [
        'an ordering shopper paying by card',
        post(
          ordering(ecpJson({ items: [[usd, 1]], expected: '5.00' }), {
            creditCard: { cardLastFourDigits: '1111' },
          }),
        ),
        'order.orderingShopper.creditCard',
      ],
    ];
    for (const [name, reply, property] of cases) {
      const refused = await reply;
      expect(failure(refused), name).toMatchObject({ status: 400, code: 10001, property });
      expect(refused.text).not.toContain(ACCOUNT);
    }
    expect(await rowCounts(merchant)).toEqual(before);
  });
});
