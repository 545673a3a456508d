import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { callOptions, createPaywireClient, type PaywireClient } from '@paywire/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adyenTestCard, startLiveStack } from '../support/adyen.ts';
import { as, type CallOptions, client, expectStatus, type Reply, saleBody } from '../support/http.ts';
import { type IpnReceiver, type ReceivedIpn, startIpnReceiver } from '../support/ipn-receiver.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Instant payment notifications (see docs/conformance.md: IPN configuration, IPN delivery,
// Paths and versions, Formats, Errors), over real HTTP against real PostgreSQL, with a real
// HTTP receiver on 127.0.0.1 that records every delivery.
// ---------------------------------------------------------------------------------------------------------

const NAMESPACE = 'http://ws.plimus.com';
const CARD = '4263982640269299';
const CVV = '837';
const DECLINING_VISA = '4917484589897107';
const IPN_DATE = /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} (AM|PM)$/;

/** The 28 send flags, in the interface's order (docs/conformance.md, IPN configuration). */
const FLAGS = [
  'sendAuthOnly',
  'sendCancellation',
  'sendCancelOnRenewal',
  'sendCharge',
  'sendChargeback',
  'sendChargebackStatusChanged',
  'sendContractChange',
  'sendCancellationRefund',
  'sendFailedPayoutTransfer',
  'sendSubscriptionReminder',
  'sendDecline',
  'sendRefund',
  'sendRecurring',
  'sendCcFailure',
  'sendSubCcFailure',
  'sendUnderVendorReview',
  'sendPaymentUpdate',
  'sendPaymentUpdateFailure',
  'sendAccountUpdater',
  'sendPayout',
  'sendVendorStatusChanged',
  'sendFraudDecline',
  'sendChargePending',
  'sendShopperDeleted',
  'sendVendorReportAvailable',
  'sendMerchantOnboarded',
  'sendOfflineOrder',
  'sendCcStatusChanged',
] as const;
type Flag = (typeof FLAGS)[number];

/** Every card event this service sends today. */
const CARD_FLAGS = {
  sendAuthOnly: true,
  sendCancellation: true,
  sendCharge: true,
  sendDecline: true,
  sendRefund: true,
} as const;

const configShape = { root: 'notification-config', wrapped: { ipnDestinations: 'ipn-destination' } };
const asConfigXml: CallOptions = { format: 'xml', shape: configShape };
const version2 = { 'bluesnap-version': '2.0' };

// --- the receiver -----------------------------------------------------------------------------------------

/** Waits for the first request at hook whose transactionType and referenceNumber match. */
const arrival = (receiver: IpnReceiver, hook: string, transactionType: string, referenceNumber?: string) =>
  waitFor(`${transactionType} ${referenceNumber ?? ''} at ${hook}`, () =>
    receiver
      .at(hook)
      .find(
        (request) =>
          request.params.get('transactionType') === transactionType &&
          (referenceNumber === undefined || request.params.get('referenceNumber') === referenceNumber),
      ),
  );

// --- Standard Webhooks, verified independently of the implementation ---------------------------------------

function verifies(secret: string, request: ReceivedIpn): boolean {
  const id = String(request.headers['webhook-id'] ?? '');
  const timestamp = String(request.headers['webhook-timestamp'] ?? '');
  const header = String(request.headers['webhook-signature'] ?? '');
  if (!/^whsec_/.test(secret) || id === '' || !/^\d+$/.test(timestamp)) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest();
  return header.split(' ').some((part) => {
    const [scheme, value] = part.split(',');
    if (scheme !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

// --- the stack, the API and core's internal procedures -----------------------------------------------------

let stack: Stack;
let api: ReturnType<typeof client>;
let core: PaywireClient;
let db: pg.Pool;
let receiver: IpnReceiver;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  api = client(stack);
  core = createPaywireClient({ url: stack.core.url, credential: stack.facadeCredential });
  db = stack.db;
});

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const acting = (merchant: TestMerchant) => callOptions({ merchantId: merchant.id });

/** A 400 VALIDATION_GENERAL_FAILURE (10001) whose first message names the property. */
function expectInvalid(reply: Reply, property: RegExp) {
  expect(reply.status, reply.text).toBe(400);
  const [first] = reply.body?.message ?? [];
  expect(first?.errorName, reply.text).toBe('VALIDATION_GENERAL_FAILURE');
  expect(Number(first?.code), reply.text).toBe(10001);
  expect(first?.invalidProperty?.name, reply.text).toMatch(property);
}

type Destination = { ipnUrl: string } & Partial<Record<Flag, boolean | string>>;

const configBody = (ipnDestinations: Destination[], ensureNotificationReceipt: boolean | string = false) => ({
  ipnDestinations,
  ensureNotificationReceipt,
  receiveAffiliateNotifications: false,
});

/** The stored form of a destination: every flag present, in order, the given ones on. */
const stored = (ipnUrl: string, on: Partial<Record<Flag, boolean>> = {}) => ({
  ipnUrl,
  ...Object.fromEntries(FLAGS.map((flag) => [flag, on[flag] === true])),
});

const emptyConfig = {
  ipnDestinations: [],
  ensureNotificationReceipt: false,
  receiveAffiliateNotifications: false,
};

async function configure(merchant: TestMerchant, destinations: Destination[]) {
  return expectStatus(await api.post('/notification-config', configBody(destinations), as(merchant)), 200)
    .body;
}

/** A merchant whose only destination is a fresh hook with every card event on. */
async function merchantWithHook(flags: Partial<Record<Flag, boolean>> = CARD_FLAGS) {
  const merchant = await stack.newMerchant();
  const hook = receiver.newHook();
  await configure(merchant, [{ ipnUrl: hook, ...flags }]);
  return { merchant, hook };
}

const newMerchantTransactionId = () => `ipn-${randomBytes(6).toString('hex')}`;

async function sale(merchant: TestMerchant, overrides: Record<string, unknown> = {}) {
  const body = saleBody({ merchantTransactionId: newMerchantTransactionId(), ...overrides });
  return expectStatus(await api.post('/transactions', body, as(merchant)), 200).body;
}

interface DeliveryRow {
  id: string;
  event: string;
  reference_number: string | null;
  destination: string;
  body: string;
  state: string;
}

async function deliveryRows(merchant: TestMerchant): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    'select id, event, reference_number, destination, body, state from ipn_delivery where merchant_id = $1 order by id',
    [merchant.id],
  );
  return rows;
}

/**
 * Waits until every one of the merchant's deliveries is delivered or failed. Deliveries are sent only from these rows, and a
 * row is marked delivered after the receiver has recorded its request, so from then on the receiver holds
 * every request the merchant's events will ever cause (short of a redelivery).
 */
const settled = (merchant: TestMerchant) =>
  waitFor(`the deliveries of merchant ${merchant.id} to settle`, async () => {
    const rows = await deliveryRows(merchant);
    return rows.every((row) => row.state === 'delivered' || row.state === 'failed') && rows;
  });

const secretOf = async (merchant: TestMerchant) =>
  (await core.ipn.secret.query(undefined, acting(merchant))).secret;

interface CardIpn {
  transactionType: string;
  referenceNumber: string;
  merchantTransactionId: string;
  accountId: string;
  invoiceAmount: string;
  lastFour?: string;
}

/** The parameters a card event carries (docs/conformance.md, IPN delivery), its authKey, and no card secrets in the body. */
function expectCardIpn(request: ReceivedIpn, expected: CardIpn, secret: string) {
  expect(request.method).toBe('POST');
  expect(request.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  const params = Object.fromEntries(request.params);
  expect(params).toMatchObject({
    transactionType: expected.transactionType,
    referenceNumber: expected.referenceNumber,
    merchantTransactionId: expected.merchantTransactionId,
    accountId: expected.accountId,
    invoiceAmount: expected.invoiceAmount,
    currency: 'USD',
    paymentMethod: 'CC',
    firstName: 'Ada',
    lastName: 'Lovelace',
    testMode: 'Y',
    creditCardType: 'VISA',
    creditCardLastFourDigits: expected.lastFour ?? '9299',
    creditCardExpDate: '02/2031',
  });
  expect(params.transactionDate).toMatch(IPN_DATE);
  expect(params.authKey).toBe(md5(expected.referenceNumber + secret));
  expect(request.body).not.toContain(CARD);
  expect(request.body).not.toContain(DECLINING_VISA);
  for (const [name, value] of request.params) {
    expect(value, name).not.toBe(CVV);
    expect(name).not.toMatch(/securityCode|cvv$|cardNumber/i);
  }
  expect(verifies(secret, request), 'webhook-signature').toBe(true);
}

// ---------------------------------------------------------------------------------------------------------

describe('configuration API', () => {
  it('GET with nothing configured: 200, no destinations, both booleans false, in JSON and XML', async () => {
    const merchant = await stack.newMerchant();
    const json = expectStatus(
      await api.get('/notification-config', as(merchant, { headers: version2 })),
      200,
    );
    expect(json.headers.get('content-type')).toMatch(/application\/json/);
    expect(json.body).toEqual(emptyConfig);

    const xml = expectStatus(
      await api.get('/notification-config', as(merchant, { ...asConfigXml, accept: 'application/xml' })),
      200,
    );
    expect(xml.headers.get('content-type')).toMatch(/application\/xml/);
    expect(xml.text).toContain(`<notification-config xmlns="${NAMESPACE}">`);
    expect(xml.body).toEqual({
      ipnDestinations: [],
      ensureNotificationReceipt: 'false',
      receiveAffiliateNotifications: 'false',
    });
  });

  it('POST stores the whole configuration and answers it: every flag, in order, absent ones false', async () => {
    const merchant = await stack.newMerchant();
    const body = {
      ipnDestinations: [
        { ipnUrl: 'https://merchant.example/ipn', sendCharge: true, sendRefund: 'true', sendDecline: false },
        { ipnUrl: 'http://merchant.example:8080/other?x=1', sendCcStatusChanged: true },
      ],
      ensureNotificationReceipt: true,
      receiveAffiliateNotifications: false,
    };
    const expected = {
      ipnDestinations: [
        stored('https://merchant.example/ipn', { sendCharge: true, sendRefund: true }),
        stored('http://merchant.example:8080/other?x=1', { sendCcStatusChanged: true }),
      ],
      ensureNotificationReceipt: true,
      receiveAffiliateNotifications: false,
    };
    const posted = expectStatus(await api.post('/notification-config', body, as(merchant)), 200);
    expect(posted.body).toEqual(expected);
    for (const destination of posted.body.ipnDestinations) {
      expect(Object.keys(destination)).toEqual(['ipnUrl', ...FLAGS]);
      for (const flag of FLAGS) expect(typeof destination[flag], flag).toBe('boolean');
    }

    const got = expectStatus(await api.get('/notification-config', as(merchant)), 200);
    expect(got.body).toEqual(expected);
    expect(Object.keys(got.body.ipnDestinations[0])).toEqual(['ipnUrl', ...FLAGS]);
  });

  it.each([
    ['booleans', true, false],
    ['booleans', false, true],
    ['strings', 'true', 'false'],
    ['strings', 'false', 'true'],
  ])(
    'accepts ensureNotificationReceipt and receiveAffiliateNotifications as %s (%s, %s)',
    async (_kind, ensure, affiliate) => {
      const merchant = await stack.newMerchant();
      const body = {
        ipnDestinations: [{ ipnUrl: 'https://merchant.example/ipn' }],
        ensureNotificationReceipt: ensure,
        receiveAffiliateNotifications: affiliate,
      };
      const expected = {
        ipnDestinations: [stored('https://merchant.example/ipn')],
        ensureNotificationReceipt: String(ensure) === 'true',
        receiveAffiliateNotifications: String(affiliate) === 'true',
      };
      expect(expectStatus(await api.post('/notification-config', body, as(merchant)), 200).body).toEqual(
        expected,
      );
      expect(expectStatus(await api.get('/notification-config', as(merchant)), 200).body).toEqual(expected);
    },
  );

  it('XML in, XML out: root notification-config, <ipn-destinations><ipn-destination>, XML booleans', async () => {
    const merchant = await stack.newMerchant();
    const document = `<?xml version="1.0" encoding="UTF-8"?>
<notification-config xmlns="${NAMESPACE}">
  <ipn-destinations>
    <ipn-destination>
      <ipn-url>https://a.example/ipn</ipn-url>
      <send-charge>true</send-charge>
      <send-refund>true</send-refund>
    </ipn-destination>
    <ipn-destination>
      <ipn-url>https://b.example/ipn?x=1&amp;y=2</ipn-url>
      <send-decline>true</send-decline>
      <send-charge>false</send-charge>
    </ipn-destination>
  </ipn-destinations>
  <ensure-notification-receipt>true</ensure-notification-receipt>
  <receive-affiliate-notifications>false</receive-affiliate-notifications>
</notification-config>`;
    const posted = expectStatus(
      await api.post('/notification-config', document, as(merchant, asConfigXml)),
      200,
    );
    expect(posted.headers.get('content-type')).toMatch(/application\/xml/);
    const text = posted.text;
    expect(text).toMatch(
      new RegExp(`^<\\?xml[^>]*\\?>\\s*<notification-config xmlns="${NAMESPACE.replace(/[./]/g, '\\$&')}">`),
    );
    expect(text).toMatch(
      /<ipn-destinations><ipn-destination><ipn-url>https:\/\/a\.example\/ipn<\/ipn-url>.*?<\/ipn-destination><ipn-destination><ipn-url>https:\/\/b\.example\/ipn\?x=1&amp;y=2<\/ipn-url>.*?<\/ipn-destination><\/ipn-destinations>/,
    );
    expect(text).toContain(
      '</ipn-destinations><ensure-notification-receipt>true</ensure-notification-receipt><receive-affiliate-notifications>false</receive-affiliate-notifications></notification-config>',
    );
    const first = /<ipn-destination>(.*?)<\/ipn-destination>/.exec(text)?.[1] ?? '';
    const kebab = (flag: string) => flag.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    expect([...first.matchAll(/<(send-[a-z-]+)>/g)].map((match) => match[1])).toEqual(FLAGS.map(kebab));
    expect(first).toContain('<send-charge>true</send-charge>');
    expect(first).toContain('<send-auth-only>false</send-auth-only>');

    const expected = {
      ipnDestinations: [
        stored('https://a.example/ipn', { sendCharge: true, sendRefund: true }),
        stored('https://b.example/ipn?x=1&y=2', { sendDecline: true }),
      ],
      ensureNotificationReceipt: true,
      receiveAffiliateNotifications: false,
    };
    const asStrings = (value: unknown) =>
      JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'boolean' ? String(v) : v)));
    expect(posted.body).toEqual(asStrings(expected));

    // The same configuration read back in JSON, and in XML with the version header, identical text.
    expect(expectStatus(await api.get('/notification-config', as(merchant)), 200).body).toEqual(expected);
    const gotXml = expectStatus(
      await api.get(
        '/notification-config',
        as(merchant, { ...asConfigXml, accept: 'application/xml', headers: version2 }),
      ),
      200,
    );
    expect(gotXml.text).toBe(text);
  });

  it('JSON in, XML out, and XML in, JSON out', async () => {
    const merchant = await stack.newMerchant();
    const jsonIn = await api.post(
      '/notification-config',
      configBody([{ ipnUrl: 'https://a.example/ipn', sendAuthOnly: true }], true),
      as(merchant, { ...asConfigXml, format: 'json', accept: 'application/xml' }),
    );
    expectStatus(jsonIn, 200);
    expect(jsonIn.headers.get('content-type')).toMatch(/application\/xml/);
    expect(jsonIn.text).toContain(
      '<ipn-destinations><ipn-destination><ipn-url>https://a.example/ipn</ipn-url><send-auth-only>true</send-auth-only>',
    );

    const xmlIn = await api.post(
      '/notification-config',
      `<notification-config><ipn-destinations><ipn-destination><ipn-url>https://c.example/</ipn-url><send-payout>true</send-payout></ipn-destination></ipn-destinations><ensure-notification-receipt>false</ensure-notification-receipt><receive-affiliate-notifications>true</receive-affiliate-notifications></notification-config>`,
      as(merchant, { format: 'xml', accept: 'application/json' }),
    );
    expectStatus(xmlIn, 200);
    expect(xmlIn.headers.get('content-type')).toMatch(/application\/json/);
    expect(xmlIn.body).toEqual({
      ipnDestinations: [stored('https://c.example/', { sendPayout: true })],
      ensureNotificationReceipt: false,
      receiveAffiliateNotifications: true,
    });
  });

  it('a second POST replaces the configuration, it does not merge', async () => {
    const merchant = await stack.newMerchant();
    await configure(merchant, [
      { ipnUrl: 'https://a.example/ipn', sendCharge: true, sendRefund: true },
      { ipnUrl: 'https://b.example/ipn', sendDecline: true },
    ]);
    const second = {
      ipnDestinations: [{ ipnUrl: 'https://c.example/ipn', sendAuthOnly: true }],
      ensureNotificationReceipt: false,
      receiveAffiliateNotifications: true,
    };
    const expected = {
      ipnDestinations: [stored('https://c.example/ipn', { sendAuthOnly: true })],
      ensureNotificationReceipt: false,
      receiveAffiliateNotifications: true,
    };
    expect(expectStatus(await api.post('/notification-config', second, as(merchant)), 200).body).toEqual(
      expected,
    );
    expect(expectStatus(await api.get('/notification-config', as(merchant)), 200).body).toEqual(expected);
  });

  it('DELETE answers 204 with no body, with the version header, and GET is empty again', async () => {
    const merchant = await stack.newMerchant();
    await configure(merchant, [{ ipnUrl: 'https://a.example/ipn', sendCharge: true }]);
    const deleted = await api.delete('/notification-config', as(merchant, { headers: version2 }));
    expectStatus(deleted, 204);
    expect(deleted.text).toBe('');
    expect(
      expectStatus(await api.get('/notification-config', as(merchant, { headers: version2 })), 200).body,
    ).toEqual(emptyConfig);
    // Deleting nothing is not an error.
    expectStatus(await api.delete('/notification-config', as(merchant, { headers: version2 })), 204);
    // The header is checked, not ignored: an unknown version is 400 INVALID_API_VERSION.
    const unknown = await api.get(
      '/notification-config',
      as(merchant, { headers: { 'bluesnap-version': '9.9' } }),
    );
    expect(unknown.status, unknown.text).toBe(400);
    expect(Number(unknown.body.message[0].code)).toBe(10000);
  });

  it('another merchant never sees, replaces or deletes the configuration', async () => {
    const owner = await stack.newMerchant();
    const other = await stack.newMerchant();
    const configured = await configure(owner, [{ ipnUrl: 'https://owner.example/ipn', sendCharge: true }]);

    expect(expectStatus(await api.get('/notification-config', as(other)), 200).body).toEqual(emptyConfig);
    expectStatus(await api.delete('/notification-config', as(other)), 204);
    await configure(other, [{ ipnUrl: 'https://other.example/ipn', sendRefund: true }]);

    expect(expectStatus(await api.get('/notification-config', as(owner)), 200).body).toEqual(configured);
  });
});

describe('configuration validation', () => {
  const valid = () => configBody([{ ipnUrl: 'https://merchant.example/ipn', sendCharge: true }]);

  it.each([
    ['a destination without ipnUrl', { ipnDestinations: [{ sendCharge: true }] }, /ipnUrl$/],
    ['an ftp:// ipnUrl', { ipnDestinations: [{ ipnUrl: 'ftp://merchant.example/ipn' }] }, /ipnUrl$/],
    ['a javascript: ipnUrl', { ipnDestinations: [{ ipnUrl: 'javascript:alert(1)' }] }, /ipnUrl$/],
    ['a relative ipnUrl', { ipnDestinations: [{ ipnUrl: '/ipn' }] }, /ipnUrl$/],
    [
      'an ipnUrl with credentials',
      { ipnDestinations: [{ ipnUrl: 'https://user:secret@merchant.example/ipn' }] },
      /ipnUrl$/,
    ],
    [
      'a flag given as "yes"',
      { ipnDestinations: [{ ipnUrl: 'https://merchant.example/ipn', sendCharge: 'yes' }] },
      /sendCharge$/,
    ],
    ['no ensureNotificationReceipt', { ensureNotificationReceipt: undefined }, /^ensureNotificationReceipt$/],
    ['no destinations', { ipnDestinations: [] }, /^ipnDestinations$/],
  ])(
    'refuses %s with 400 10001 naming the property, and keeps the stored configuration',
    async (_case, change, property) => {
      const merchant = await stack.newMerchant();
      const before = await configure(merchant, [{ ipnUrl: 'https://kept.example/ipn', sendRefund: true }]);
      expectInvalid(
        await api.post('/notification-config', { ...valid(), ...change }, as(merchant)),
        property,
      );
      expect(expectStatus(await api.get('/notification-config', as(merchant)), 200).body).toEqual(before);
    },
  );

  it('refuses a bad ipnUrl in XML with an XML error body', async () => {
    const merchant = await stack.newMerchant();
    const reply = await api.post(
      '/notification-config',
      `<notification-config xmlns="${NAMESPACE}"><ipn-destinations><ipn-destination><ipn-url>ftp://merchant.example/ipn</ipn-url></ipn-destination></ipn-destinations><ensure-notification-receipt>false</ensure-notification-receipt><receive-affiliate-notifications>false</receive-affiliate-notifications></notification-config>`,
      as(merchant, { format: 'xml' }),
    );
    expect(reply.headers.get('content-type')).toMatch(/application\/xml/);
    expect(reply.text).toContain('<code>10001</code>');
    expectInvalid(reply, /ipnUrl$/);
  });
});

describe('card events reach the receiver', () => {
  it('a sale (AUTH_CAPTURE) sends one CHARGE with the documented parameters', async () => {
    const { merchant, hook } = await merchantWithHook();
    const paid = await sale(merchant);
    const request = await arrival(receiver, hook, 'CHARGE', paid.transactionId);
    expectCardIpn(
      request,
      {
        transactionType: 'CHARGE',
        referenceNumber: paid.transactionId,
        merchantTransactionId: paid.merchantTransactionId,
        accountId: String(paid.vaultedShopperId),
        invoiceAmount: '25.50',
      },
      await secretOf(merchant),
    );
    const rows = await settled(merchant);
    expect(rows.map((row) => [row.event, row.reference_number, row.destination])).toEqual([
      ['Charge', paid.transactionId, hook],
    ]);
    expect(receiver.at(hook)).toHaveLength(1);
  });

  it('AUTH_ONLY sends AUTH_ONLY; its capture sends CHARGE for the captured amount', async () => {
    const { merchant, hook } = await merchantWithHook();
    const auth = await sale(merchant, { cardTransactionType: 'AUTH_ONLY' });
    const secret = await secretOf(merchant);
    const common = {
      referenceNumber: auth.transactionId,
      merchantTransactionId: auth.merchantTransactionId,
      accountId: String(auth.vaultedShopperId),
    };
    expectCardIpn(
      await arrival(receiver, hook, 'AUTH_ONLY', auth.transactionId),
      { ...common, transactionType: 'AUTH_ONLY', invoiceAmount: '25.50' },
      secret,
    );

    expectStatus(
      await api.put(
        '/transactions',
        { cardTransactionType: 'CAPTURE', transactionId: auth.transactionId, amount: 20 },
        as(merchant),
      ),
      200,
    );
    expectCardIpn(
      await arrival(receiver, hook, 'CHARGE', auth.transactionId),
      { ...common, transactionType: 'CHARGE', invoiceAmount: '20.00' },
      secret,
    );
    await settled(merchant);
    expect(receiver.at(hook).map((request) => request.params.get('transactionType'))).toEqual([
      'AUTH_ONLY',
      'CHARGE',
    ]);
  });

  it('a reversal sends CANCELLATION', async () => {
    const { merchant, hook } = await merchantWithHook();
    const auth = await sale(merchant, { cardTransactionType: 'AUTH_ONLY' });
    expectStatus(
      await api.put(
        '/transactions',
        { cardTransactionType: 'AUTH_REVERSAL', transactionId: auth.transactionId },
        as(merchant),
      ),
      200,
    );
    expectCardIpn(
      await arrival(receiver, hook, 'CANCELLATION', auth.transactionId),
      {
        transactionType: 'CANCELLATION',
        referenceNumber: auth.transactionId,
        merchantTransactionId: auth.merchantTransactionId,
        accountId: String(auth.vaultedShopperId),
        invoiceAmount: '25.50',
      },
      await secretOf(merchant),
    );
  });

  it('a refund sends REFUND for the refunded amount', async () => {
    const { merchant, hook } = await merchantWithHook();
    const paid = await sale(merchant);
    expectStatus(
      await api.post(`/transactions/refund/${paid.transactionId}`, { amount: 10 }, as(merchant)),
      200,
    );
    expectCardIpn(
      await arrival(receiver, hook, 'REFUND', paid.transactionId),
      {
        transactionType: 'REFUND',
        referenceNumber: paid.transactionId,
        merchantTransactionId: paid.merchantTransactionId,
        accountId: String(paid.vaultedShopperId),
        invoiceAmount: '10.00',
      },
      await secretOf(merchant),
    );
  });

  it('a declined sale sends DECLINE, and nothing else', async () => {
    const { merchant, hook } = await merchantWithHook();
    const merchantTransactionId = newMerchantTransactionId();
    const body = saleBody({
      merchantTransactionId,
      creditCard: { ...saleBody().creditCard, cardNumber: DECLINING_VISA },
    });
    const declined = await api.post('/transactions', body, as(merchant));
    expect(declined.status, declined.text).toBe(400);
    expect(Number(declined.body.message[0].code)).toBe(14002);

    const request = await arrival(receiver, hook, 'DECLINE');
    const secret = await secretOf(merchant);
    const referenceNumber = request.params.get('referenceNumber') ?? '';
    expect(request.params.get('merchantTransactionId')).toBe(merchantTransactionId);
    expect(request.params.get('invoiceAmount')).toBe('25.50');
    expect(request.params.get('creditCardLastFourDigits')).toBe('7107');
    expect(request.params.get('firstName')).toBe('Ada');
    expect(request.params.get('transactionDate')).toMatch(IPN_DATE);
    expect(request.params.get('authKey')).toBe(md5(referenceNumber + secret));
    expect(request.body).not.toContain(DECLINING_VISA);
    expect(verifies(secret, request)).toBe(true);

    const rows = await settled(merchant);
    expect(rows.map((row) => row.event)).toEqual(['Decline']);
    expect(receiver.at(hook)).toHaveLength(1);
  });
});

describe('webhook signature', () => {
  it('signs with the merchant secret per Standard Webhooks; a changed body does not verify', async () => {
    const { merchant, hook } = await merchantWithHook();
    const paid = await sale(merchant);
    const request = await arrival(receiver, hook, 'CHARGE', paid.transactionId);
    const secret = await secretOf(merchant);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(request.headers['webhook-id']).toMatch(/\S/);
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    const timestamp = Number(request.headers['webhook-timestamp']);
    expect(Math.abs(timestamp - request.at / 1000)).toBeLessThan(300);
    expect(verifies(secret, request)).toBe(true);
    expect(verifies(secret, { ...request, body: `${request.body}&x=1` })).toBe(false);
    expect(verifies(`whsec_${randomBytes(24).toString('base64')}`, request)).toBe(false);
    // The secret is per merchant.
    expect(await secretOf(await stack.newMerchant())).not.toBe(secret);
  });

  it('after rotateSecret, new deliveries verify with the new secret (and the old one for the overlap), and carry its authKey', async () => {
    const { merchant, hook } = await merchantWithHook();
    const before = await sale(merchant);
    const old = await secretOf(merchant);
    expect(verifies(old, await arrival(receiver, hook, 'CHARGE', before.transactionId))).toBe(true);

    const { secret: rotated } = await core.ipn.rotateSecret.mutate(undefined, acting(merchant));
    expect(rotated).not.toBe(old);
    expect(await secretOf(merchant)).toBe(rotated);

    const after = await sale(merchant);
    const request = await arrival(receiver, hook, 'CHARGE', after.transactionId);
    expect(verifies(rotated, request)).toBe(true);
    // The previous secret signs beside the new one for a day (docs/security.md, IPN secrets).
    expect(verifies(old, request)).toBe(true);
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(request.params.get('authKey')).toBe(md5(after.transactionId + rotated));
  });
});

describe('send flags', () => {
  it('a destination with sendCharge false gets no CHARGE while one with sendCharge true does', async () => {
    const merchant = await stack.newMerchant();
    const quiet = receiver.newHook();
    const loud = receiver.newHook();
    await configure(merchant, [
      { ipnUrl: quiet, sendCharge: false, sendRefund: true },
      { ipnUrl: loud, sendCharge: true },
    ]);
    const paid = await sale(merchant);
    await arrival(receiver, loud, 'CHARGE', paid.transactionId);
    // The positive control for the quiet destination: an event it does take.
    expectStatus(await api.post(`/transactions/refund/${paid.transactionId}`, {}, as(merchant)), 200);
    await arrival(receiver, quiet, 'REFUND', paid.transactionId);

    const rows = await settled(merchant);
    expect(rows.map((row) => [row.event, row.destination])).toEqual([
      ['Charge', loud],
      ['Refund', quiet],
    ]);
    expect(receiver.at(quiet).map((request) => request.params.get('transactionType'))).toEqual(['REFUND']);
    expect(receiver.at(loud).map((request) => request.params.get('transactionType'))).toEqual(['CHARGE']);
  });

  it('with no configuration nothing is recorded or sent', async () => {
    const never = await stack.newMerchant();
    await sale(never);
    expect(await deliveryRows(never)).toEqual([]);

    // Configured, then deleted: the old destination hears nothing of the sale made in between.
    const { merchant, hook } = await merchantWithHook();
    expectStatus(await api.delete('/notification-config', as(merchant)), 204);
    const unheard = await sale(merchant);
    expect(await deliveryRows(merchant)).toEqual([]);

    await configure(merchant, [{ ipnUrl: hook, sendCharge: true }]);
    const heard = await sale(merchant);
    await arrival(receiver, hook, 'CHARGE', heard.transactionId);
    const rows = await settled(merchant);
    expect(rows.map((row) => row.reference_number)).toEqual([heard.transactionId]);
    expect(receiver.at(hook).map((request) => request.params.get('referenceNumber'))).toEqual([
      heard.transactionId,
    ]);
    expect(unheard.transactionId).not.toBe(heard.transactionId);
  });
});

describe('rolled back or replayed writes send nothing', () => {
  it('a sale refused for a reused merchantTransactionId records and sends no CHARGE', async () => {
    const { merchant, hook } = await merchantWithHook();
    const merchantTransactionId = newMerchantTransactionId();
    const first = await sale(merchant, { merchantTransactionId });
    const refused = await api.post(
      '/transactions',
      saleBody({ merchantTransactionId, amount: 30 }),
      as(merchant),
    );
    expectInvalid(refused, /^merchantTransactionId$/);

    const control = await sale(merchant);
    await arrival(receiver, hook, 'CHARGE', control.transactionId);
    const rows = await settled(merchant);
    expect(rows.map((row) => [row.event, row.reference_number])).toEqual([
      ['Charge', first.transactionId],
      ['Charge', control.transactionId],
    ]);
    const charges = receiver.at(hook);
    expect(charges.map((request) => request.params.get('referenceNumber')).sort()).toEqual(
      [first.transactionId, control.transactionId].sort(),
    );
    expect(charges.some((request) => request.params.get('invoiceAmount') === '30.00')).toBe(false);
  });

  it('a replayed Idempotency-Key sale does not deliver a second CHARGE', async () => {
    const { merchant, hook } = await merchantWithHook();
    const key = randomUUID();
    const body = saleBody({ merchantTransactionId: newMerchantTransactionId() });
    const keyed = as(merchant, { headers: { 'idempotency-key': key } });
    const first = expectStatus(await api.post('/transactions', body, keyed), 200);
    const again = expectStatus(await api.post('/transactions', body, keyed), 200);
    expect(again.text).toBe(first.text);
    const { transactionId } = first.body;

    const control = await sale(merchant);
    await arrival(receiver, hook, 'CHARGE', control.transactionId);
    const rows = await settled(merchant);
    expect(rows.filter((row) => row.reference_number === transactionId).map((row) => row.event)).toEqual([
      'Charge',
    ]);
    expect(
      receiver.at(hook).filter((request) => request.params.get('referenceNumber') === transactionId),
    ).toHaveLength(1);
  });

  it('a replayed Idempotency-Key decline does not deliver a second DECLINE', async () => {
    const { merchant, hook } = await merchantWithHook();
    const merchantTransactionId = newMerchantTransactionId();
    const body = saleBody({
      merchantTransactionId,
      creditCard: { ...saleBody().creditCard, cardNumber: DECLINING_VISA },
    });
    const keyed = as(merchant, { headers: { 'idempotency-key': randomUUID() } });
    const first = await api.post('/transactions', body, keyed);
    expect(first.status, first.text).toBe(400);
    const again = await api.post('/transactions', body, keyed);
    expect(again.text).toBe(first.text);

    const control = await sale(merchant);
    await arrival(receiver, hook, 'CHARGE', control.transactionId);
    const rows = await settled(merchant);
    expect(rows.map((row) => row.event).sort()).toEqual(['Charge', 'Decline']);
    const declines = receiver
      .at(hook)
      .filter((request) => request.params.get('transactionType') === 'DECLINE');
    expect(declines.map((request) => request.params.get('merchantTransactionId'))).toEqual([
      merchantTransactionId,
    ]);
  });
});

/** The merchant's delivery log, first page, through core's procedure. */
const deliveryLog = async (coreClient: PaywireClient, merchant: TestMerchant) =>
  (await coreClient.ipn.deliveries.query({}, acting(merchant))).notificationDeliveries;

describe('delivery log and redelivery (core procedures)', () => {
  it('lists the merchant deliveries newest first, delivered with status 200, and only its own', async () => {
    const { merchant, hook } = await merchantWithHook();
    const paid = await sale(merchant);
    await arrival(receiver, hook, 'CHARGE', paid.transactionId);
    expectStatus(
      await api.post(`/transactions/refund/${paid.transactionId}`, { amount: 5 }, as(merchant)),
      200,
    );
    await arrival(receiver, hook, 'REFUND', paid.transactionId);
    await settled(merchant);

    const log = await deliveryLog(core, merchant);
    expect(log).toHaveLength(2);
    expect(log.map((entry) => entry.event)).toEqual(['Refund', 'Charge']);
    expect(log[0]?.deliveryId).toBeGreaterThan(log[1]?.deliveryId ?? Number.POSITIVE_INFINITY);
    for (const entry of log) {
      expect(entry).toMatchObject({
        referenceNumber: paid.transactionId,
        destination: hook,
        state: 'delivered',
        attempts: 1,
        lastStatus: 200,
        lastError: null,
      });
      expect(entry.maxAttempts).toBeGreaterThanOrEqual(11); // docs/conformance.md, IPN delivery: at least 11 attempts
      expect(entry.deliveredAt).not.toBeNull();
    }
    expect(await deliveryLog(core, await stack.newMerchant())).toEqual([]);
  });

  it('redeliver sends the same body again with the same webhook-id; another merchant cannot', async () => {
    const { merchant, hook } = await merchantWithHook();
    const paid = await sale(merchant);
    const original = await arrival(receiver, hook, 'CHARGE', paid.transactionId);
    await settled(merchant);
    const [delivery] = await deliveryLog(core, merchant);
    if (!delivery) throw new Error('no delivery listed');

    await core.ipn.redeliver.mutate({ deliveryId: delivery.deliveryId }, acting(merchant));
    const both = await waitFor('the redelivery', () => {
      const arrived = receiver.at(hook);
      return arrived.length >= 2 && arrived;
    });
    expect(both).toHaveLength(2);
    const again = both[1] as ReceivedIpn;
    expect(again.body).toBe(original.body);
    expect(again.headers['webhook-id']).toBe(original.headers['webhook-id']);
    expect(verifies(await secretOf(merchant), again)).toBe(true);
    const entry = await waitFor('the redelivery to be logged', async () => {
      const [latest] = await deliveryLog(core, merchant);
      return latest?.state === 'delivered' && latest.attempts === 2 && latest;
    });
    expect(entry).toMatchObject({ deliveryId: delivery.deliveryId, lastStatus: 200 });

    const stranger = await stack.newMerchant();
    await expect(
      core.ipn.redeliver.mutate({ deliveryId: delivery.deliveryId }, acting(stranger)),
    ).rejects.toMatchObject({ data: { httpStatus: 404 } });
    const [untouched] = await deliveryLog(core, merchant);
    expect(untouched).toMatchObject({ deliveryId: delivery.deliveryId, state: 'delivered', attempts: 2 });
  });
});

describe('outbound safety in live mode', () => {
  let live: Stack;
  let liveCore: PaywireClient;

  beforeAll(async () => {
    live = await startLiveStack();
    liveCore = createPaywireClient({ url: live.core.url, credential: live.facadeCredential });
  });

  afterAll(async () => {
    await live?.close();
  });

  it('refuses to deliver to loopback: the delivery fails, the receiver gets nothing', async () => {
    const liveApi = client(live);
    const merchant = await live.newMerchant();
    const hook = receiver.newHook();
    // The same receiver by address, by name, and as an IPv4-mapped IPv6 address (which does reach it).
    const byName = hook.replace('127.0.0.1', 'localhost');
    const mapped = hook.replace('127.0.0.1', '[::ffff:127.0.0.1]');
    const targets = [hook, byName, mapped];
    expectStatus(
      await liveApi.post(
        '/notification-config',
        configBody(targets.map((ipnUrl) => ({ ipnUrl, sendCharge: true }))),
        { merchant },
      ),
      200,
    );
    const paid = expectStatus(
      await liveApi.post('/transactions', saleBody({ creditCard: adyenTestCard }), { merchant }),
      200,
    ).body;

    const log = await waitFor('the deliveries to end', async () => {
      const entries = await deliveryLog(liveCore, merchant);
      return (
        entries.length === targets.length && entries.every((entry) => entry.state === 'failed') && entries
      );
    });
    for (const entry of log) {
      expect(entry).toMatchObject({ event: 'Charge', referenceNumber: paid.transactionId, state: 'failed' });
      expect(entry.lastError).toMatch(/private|loopback/);
      expect(entry.lastStatus).toBeNull();
    }
    expect(log.map((entry) => entry.destination)).toHaveLength(targets.length);
    // All destinations share the hook's path; refused deliveries are final, so nothing comes later.
    expect(receiver.at(hook)).toEqual([]);

    // The live stack still records what it would have sent, marked as not a test.
    const liveDb = new pg.Client({ connectionString: live.databaseUrl });
    await liveDb.connect();
    try {
      const { rows } = await liveDb.query<{ body: string }>(
        'select body from ipn_delivery where merchant_id = $1',
        [merchant.id],
      );
      expect(rows.map((row) => new URLSearchParams(row.body).get('testMode'))).toEqual(['N', 'N', 'N']);
    } finally {
      await liveDb.end();
    }
  });
});
