import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Reply } from '../support/http.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// Test data and helpers
// ---------------------------------------------------------------------------------------------------------

interface TestCard {
  cardNumber: string;
  securityCode: string;
  expirationMonth: string;
  expirationYear: string;
}

/** Approving sandbox cards (docs/conformance.md, Sandbox processor), each with what a response may show of it. */
const visa: TestCard = {
  cardNumber: '4263982640269299',
  securityCode: '837',
  expirationMonth: '02',
  expirationYear: '2031',
};
const mastercard: TestCard = {
  cardNumber: '5425233430109903',
  securityCode: '415',
  expirationMonth: '11',
  expirationYear: '2030',
};
const amex: TestCard = {
  cardNumber: '374245455400126',
  securityCode: '1234',
  expirationMonth: '05',
  expirationYear: '2032',
};

const visaShown = {
  cardLastFourDigits: '9299',
  cardType: 'VISA',
  cardSubType: 'CREDIT',
  cardCategory: 'CLASSIC',
  expirationMonth: '02',
  expirationYear: '2031',
};
const mastercardShown = {
  cardLastFourDigits: '9903',
  cardType: 'MASTERCARD',
  cardSubType: 'CREDIT',
  cardCategory: 'CLASSIC',
  expirationMonth: '11',
  expirationYear: '2030',
};
const amexShown = {
  cardLastFourDigits: '0126',
  cardType: 'AMEX',
  cardSubType: 'CREDIT',
  cardCategory: 'PLATINUM',
  expirationMonth: '05',
  expirationYear: '2032',
};

const billing = { firstName: 'Ada', lastName: 'Lovelace', address1: 'Marylebone Road', city: 'London' };

const shopperXmlShape = { shape: { root: 'vaulted-shopper', repeated: ['creditCardInfo'] } };
const clockXmlShape = { shape: { root: 'sandbox-clock' } };

const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

/** A complete create body: names, contact and address fields, and two cards, the first with billing. */
function shopperBody(overrides: Record<string, unknown> = {}) {
  return {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.com',
    country: 'gb',
    state: 'LND',
    city: 'London',
    address: 'Marylebone Road',
    address2: 'Flat B',
    zip: 'NW-ONE',
    phone: 'plus-forty-four',
    companyName: 'Analytical Engines',
    shopperCurrency: 'GBP',
    merchantShopperId: unique('shopper'),
    paymentSources: {
      creditCardInfo: [{ billingContactInfo: billing, creditCard: visa }, { creditCard: mastercard }],
    },
    ...overrides,
  };
}

/** The plain fields of a shopper body, as a response should echo them. */
function echoedFields(body: Record<string, unknown>) {
  const { paymentSources: _, ...fields } = body;
  return fields;
}

/** Full card numbers and security codes must never appear in a reply's text. */
function expectNoCardData(reply: Reply, cards: TestCard[]) {
  for (const card of cards) {
    expect(reply.text).not.toContain(card.cardNumber);
    expect(reply.text).not.toMatch(new RegExp(`\\b${card.securityCode}\\b`));
  }
}

interface ShopperReply {
  vaultedShopperId: number;
  merchantShopperId?: string;
  paymentSources: {
    creditCardInfo: Array<{ billingContactInfo?: object; creditCard: Record<string, string> }>;
  };
  lastPaymentInfo?: unknown;
}

/** The response fields of a shopper's cards, oldest first. */
const cardsOf = (shopper: ShopperReply) =>
  shopper.paymentSources.creditCardInfo.map((info) => info.creditCard);

interface ErrorMessage {
  errorName: string;
  code: number | string;
  description: string;
  invalidProperty?: { name: string; messageValue?: string };
}

/** Asserts the error body: the status, and a message with the name, code and (optionally) property. */
function expectError(reply: Reply, status: number, errorName: string, code: number, property?: string) {
  expect(reply.status, reply.text).toBe(status);
  const messages = reply.body?.message as ErrorMessage[] | undefined;
  expect(Array.isArray(messages), reply.text).toBe(true);
  const match = messages?.find(
    (message) =>
      message.errorName === errorName &&
      (property === undefined || message.invalidProperty?.name === property),
  );
  expect(match, reply.text).toBeDefined();
  // JSON carries the code as a number; XML has only text.
  const xml = reply.headers.get('content-type')?.includes('xml');
  expect(match?.code).toBe(xml ? String(code) : code);
  return match as ErrorMessage;
}

const saleWith = (fields: Record<string, unknown>) => ({
  cardTransactionType: 'AUTH_CAPTURE',
  amount: 12.5,
  currency: 'USD',
  ...fields,
});

const tokenPattern = /^[A-Za-z0-9_-]{22,}$/;

// ---------------------------------------------------------------------------------------------------------
// The sandbox stack, shared by every describe but the live-mode one
// ---------------------------------------------------------------------------------------------------------

let stack: Stack;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
});
afterAll(() => stack?.close());

async function createShopper(body: Record<string, unknown> = shopperBody()) {
  const reply = await api.post('/vaulted-shoppers', body);
  expect(reply.status, reply.text).toBe(200);
  return reply.body as ShopperReply;
}

/** POST /payment-fields-tokens; returns the token from the Location header. */
async function newToken(merchant: TestMerchant = stack.merchant): Promise<string> {
  const reply = await api.post('/payment-fields-tokens', undefined, { merchant });
  expect(reply.status, reply.text).toBe(201);
  const token = reply.headers.get('location')?.split('/').at(-1) ?? '';
  expect(token).toMatch(tokenPattern);
  return token;
}

/** PUT /payment-fields-tokens/{token} as the hosted fields page does it: no merchant credentials. */
function bind(
  token: string,
  card: Record<string, unknown> = { ccNumber: visa.cardNumber, cvv: '837', expDate: '02/2031' },
) {
  return api.put(`/payment-fields-tokens/${token}`, card, { merchant: null });
}

async function boundToken(merchant: TestMerchant = stack.merchant): Promise<string> {
  const token = await newToken(merchant);
  const reply = await bind(token);
  expect(reply.status, reply.text).toBe(200);
  return token;
}

const advanceClock = (merchant: TestMerchant, advanceBy: string) =>
  api.put('/sandbox/clock', { advanceBy }, { merchant });

// ---------------------------------------------------------------------------------------------------------
// Vaulted shoppers
// ---------------------------------------------------------------------------------------------------------

describe('vaulted shoppers', () => {
  it('creates a shopper with two cards and shows only the cards’ response fields', async () => {
    const body = shopperBody();
    const reply = await api.post('/vaulted-shoppers', body);

    expect(reply.status, reply.text).toBe(200);
    expect(Number.isInteger(reply.body.vaultedShopperId)).toBe(true);
    expect(reply.body.vaultedShopperId).toBeGreaterThan(0);
    expect(reply.body).toMatchObject(echoedFields(body));
    expect(reply.body.paymentSources.creditCardInfo).toEqual([
      { billingContactInfo: billing, creditCard: visaShown },
      { creditCard: mastercardShown },
    ]);
    expect(reply.body.lastPaymentInfo).toBeUndefined();
    expectNoCardData(reply, [visa, mastercard]);
  });

  it('GET /vaulted-shoppers/{id} returns the shopper as created', async () => {
    const created = await createShopper();

    const reply = await api.get(`/vaulted-shoppers/${created.vaultedShopperId}`);

    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual(created);
    expectNoCardData(reply, [visa, mastercard]);
  });

  it('PUT /vaulted-shoppers/{id} updates fields, adds a card and answers with the updated shopper', async () => {
    const created = await createShopper();
    const id = created.vaultedShopperId;

    const reply = await api.put(`/vaulted-shoppers/${id}`, {
      firstName: 'Augusta',
      city: 'Ockham',
      email: 'augusta@example.com',
      paymentSources: { creditCardInfo: [{ creditCard: amex }] },
    });

    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      vaultedShopperId: id,
      firstName: 'Augusta',
      lastName: 'Lovelace', // untouched
      city: 'Ockham',
      email: 'augusta@example.com',
      merchantShopperId: created.merchantShopperId,
    });
    expect(cardsOf(reply.body)).toEqual([visaShown, mastercardShown, amexShown]);
    expectNoCardData(reply, [visa, mastercard, amex]);

    const read = await api.get(`/vaulted-shoppers/${id}`);
    expect(read.body).toEqual(reply.body);
  });

  it('stores a card added again only once, with its new expiry', async () => {
    const created = await createShopper();
    const id = created.vaultedShopperId;

    const reply = await api.put(`/vaulted-shoppers/${id}`, {
      paymentSources: { creditCardInfo: [{ creditCard: { ...visa, expirationYear: '2033' } }] },
    });

    expect(reply.status, reply.text).toBe(200);
    const cards = cardsOf(reply.body);
    expect(cards).toHaveLength(2);
    expect(cards.filter((card) => card.cardLastFourDigits === '9299')).toEqual([
      { ...visaShown, expirationYear: '2033' },
    ]);
  });

  it('stores the same card sent twice in one create request only once', async () => {
    const reply = await api.post(
      '/vaulted-shoppers',
      shopperBody({ paymentSources: { creditCardInfo: [{ creditCard: visa }, { creditCard: visa }] } }),
    );

    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.paymentSources.creditCardInfo).toEqual([{ creditCard: visaShown }]);
  });

  it('stores a new card sent twice in one update request only once', async () => {
    const created = await createShopper();

    const reply = await api.put(`/vaulted-shoppers/${created.vaultedShopperId}`, {
      paymentSources: { creditCardInfo: [{ creditCard: amex }, { creditCard: amex }] },
    });

    expect(reply.status, reply.text).toBe(200);
    expect(cardsOf(reply.body)).toEqual([visaShown, mastercardShown, amexShown]);
  });

  it('finds a shopper by merchantShopperId', async () => {
    const created = await createShopper();

    const reply = await api.get(`/vaulted-shoppers/merchant/${created.merchantShopperId}`);

    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual(created);
  });

  it('answers 404 20002 for an unknown merchantShopperId', async () => {
    const reply = await api.get(`/vaulted-shoppers/merchant/${unique('nobody')}`);
    expectError(reply, 404, 'SHOPPER_NOT_FOUND', 20002);
  });

  it('refuses a create without firstName with 400 10001 naming firstName', async () => {
    const { firstName: _, ...body } = shopperBody();

    const reply = await api.post('/vaulted-shoppers', body);

    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001, 'firstName');
    expectNoCardData(reply, [visa, mastercard]);
  });

  it('refuses a malformed email with 400 10001 naming email', async () => {
    const reply = await api.post('/vaulted-shoppers', shopperBody({ email: 'not-an-email' }));
    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001, 'email');
  });

  it('refuses a card failing the Luhn check without echoing it', async () => {
    const bad = { ...visa, cardNumber: '4263982640269290' };
    const reply = await api.post(
      '/vaulted-shoppers',
      shopperBody({ paymentSources: { creditCardInfo: [{ creditCard: bad }] } }),
    );

    expectError(
      reply,
      400,
      'VALIDATION_GENERAL_FAILURE',
      10001,
      'paymentSources.creditCardInfo.0.creditCard.cardNumber',
    );
    expectNoCardData(reply, [bad]);
  });

  it('refuses a merchantShopperId the merchant already uses, on create and on update', async () => {
    const first = await createShopper();
    const second = await createShopper();

    const create = await api.post(
      '/vaulted-shoppers',
      shopperBody({ merchantShopperId: first.merchantShopperId }),
    );
    expectError(create, 400, 'VALIDATION_GENERAL_FAILURE', 10001, 'merchantShopperId');

    const update = await api.put(`/vaulted-shoppers/${second.vaultedShopperId}`, {
      merchantShopperId: first.merchantShopperId,
    });
    expectError(update, 400, 'VALIDATION_GENERAL_FAILURE', 10001, 'merchantShopperId');
    const unchanged = await api.get(`/vaulted-shoppers/${second.vaultedShopperId}`);
    expect(unchanged.body.merchantShopperId).toBe(second.merchantShopperId);
  });

  it('lets another merchant use the same merchantShopperId', async () => {
    const created = await createShopper();
    const other = await stack.newMerchant();

    const reply = await api.post(
      '/vaulted-shoppers',
      shopperBody({ merchantShopperId: created.merchantShopperId }),
      { merchant: other },
    );

    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.vaultedShopperId).not.toBe(created.vaultedShopperId);
  });

  it('answers 404 20002 for an unknown id, on GET and PUT', async () => {
    expectError(await api.get('/vaulted-shoppers/987654321'), 404, 'SHOPPER_NOT_FOUND', 20002);
    expectError(
      await api.put('/vaulted-shoppers/987654321', { firstName: 'Nobody' }),
      404,
      'SHOPPER_NOT_FOUND',
      20002,
    );
  });

  it('hides another merchant’s shopper: 404 on GET, PUT and merchantShopperId lookup, nothing changed', async () => {
    const created = await createShopper();
    const other = await stack.newMerchant();
    const path = `/vaulted-shoppers/${created.vaultedShopperId}`;

    expectError(await api.get(path, { merchant: other }), 404, 'SHOPPER_NOT_FOUND', 20002);
    expectError(
      await api.put(path, { firstName: 'Mallory' }, { merchant: other }),
      404,
      'SHOPPER_NOT_FOUND',
      20002,
    );
    expectError(
      await api.get(`/vaulted-shoppers/merchant/${created.merchantShopperId}`, { merchant: other }),
      404,
      'SHOPPER_NOT_FOUND',
      20002,
    );

    const own = await api.get(path);
    expect(own.body).toEqual(created);
  });

  it('creates and reads a shopper in XML, with repeated <credit-card-info> under <payment-sources>', async () => {
    const merchantShopperId = unique('xml');
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<vaulted-shopper xmlns="http://ws.plimus.com">
  <first-name>Grace</first-name>
  <last-name>Hopper</last-name>
  <email>grace@example.com</email>
  <country>us</country>
  <city>Arlington</city>
  <address>Navy Yard</address>
  <zip>VA-ZIP</zip>
  <merchant-shopper-id>${merchantShopperId}</merchant-shopper-id>
  <payment-sources>
    <credit-card-info>
      <billing-contact-info>
        <first-name>Grace</first-name>
        <last-name>Hopper</last-name>
        <city>Arlington</city>
      </billing-contact-info>
      <credit-card>
        <card-number>${visa.cardNumber}</card-number>
        <security-code>${visa.securityCode}</security-code>
        <expiration-month>${visa.expirationMonth}</expiration-month>
        <expiration-year>${visa.expirationYear}</expiration-year>
      </credit-card>
    </credit-card-info>
    <credit-card-info>
      <credit-card>
        <card-number>${mastercard.cardNumber}</card-number>
        <security-code>${mastercard.securityCode}</security-code>
        <expiration-month>${mastercard.expirationMonth}</expiration-month>
        <expiration-year>${mastercard.expirationYear}</expiration-year>
      </credit-card>
    </credit-card-info>
  </payment-sources>
</vaulted-shopper>`;

    const created = await api.post('/vaulted-shoppers', xml, { format: 'xml', ...shopperXmlShape });

    expect(created.status, created.text).toBe(200);
    expect(created.headers.get('content-type')).toContain('application/xml');
    expect(created.text).toContain('xmlns="http://ws.plimus.com"');
    expect(created.text).toMatch(/<payment-sources>\s*<credit-card-info>/);
    const id = created.body.vaultedShopperId;
    expect(id).toMatch(/^\d+$/);
    expect(created.body).toMatchObject({
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'grace@example.com',
      country: 'us',
      city: 'Arlington',
      address: 'Navy Yard',
      zip: 'VA-ZIP',
      merchantShopperId,
    });
    expect(created.body.paymentSources.creditCardInfo).toEqual([
      {
        billingContactInfo: { firstName: 'Grace', lastName: 'Hopper', city: 'Arlington' },
        creditCard: visaShown,
      },
      { creditCard: mastercardShown },
    ]);
    expectNoCardData(created, [visa, mastercard]);

    const readXml = await api.get(`/vaulted-shoppers/${id}`, {
      accept: 'application/xml',
      ...shopperXmlShape,
    });
    expect(readXml.status, readXml.text).toBe(200);
    expect(readXml.body).toEqual(created.body);

    const readJson = await api.get(`/vaulted-shoppers/${id}`);
    expect(readJson.body.vaultedShopperId).toBe(Number(id));
    expect(readJson.body.paymentSources.creditCardInfo).toEqual(created.body.paymentSources.creditCardInfo);
  });

  it('answers XML errors to an XML create', async () => {
    const xml =
      '<vaulted-shopper xmlns="http://ws.plimus.com"><last-name>Hopper</last-name></vaulted-shopper>';

    const reply = await api.post('/vaulted-shoppers', xml, { format: 'xml' });

    expect(reply.headers.get('content-type')).toContain('application/xml');
    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001, 'firstName');
  });

  it('shows lastPaymentInfo after a sale with vaultedShopperId, which charges the newest card', async () => {
    const created = await createShopper();
    const id = created.vaultedShopperId;

    const sale = await api.post('/transactions', saleWith({ vaultedShopperId: id }));

    expect(sale.status, sale.text).toBe(200);
    expect(sale.body.vaultedShopperId).toBe(id);
    expect(sale.body.creditCard).toMatchObject({ cardLastFourDigits: '9903', cardType: 'MASTERCARD' });
    expect(sale.body.processingInfo.processingStatus).toBe('success');

    const read = await api.get(`/vaulted-shoppers/${id}`);
    expect(read.body.lastPaymentInfo).toEqual({
      paymentMethod: 'CC',
      creditCard: { cardLastFourDigits: '9903', cardType: 'MASTERCARD' },
    });
  });

  it('refuses a sale with vaultedShopperId for a shopper with no card with 400 20012', async () => {
    const created = await createShopper(shopperBody({ paymentSources: undefined }));
    expect(created.paymentSources.creditCardInfo).toEqual([]);

    const reply = await api.post('/transactions', saleWith({ vaultedShopperId: created.vaultedShopperId }));

    expectError(reply, 400, 'INVALID_PAYMENT_DETAILS', 20012);
  });

  it('refuses a sale for another merchant’s shopper with 404 20002', async () => {
    const created = await createShopper();
    const other = await stack.newMerchant();

    const reply = await api.post('/transactions', saleWith({ vaultedShopperId: created.vaultedShopperId }), {
      merchant: other,
    });

    expectError(reply, 404, 'SHOPPER_NOT_FOUND', 20002);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Hosted payment fields tokens
// ---------------------------------------------------------------------------------------------------------

describe('hosted payment fields tokens', () => {
  it('POST answers 201 with the token URL in Location and no body', async () => {
    const reply = await api.post('/payment-fields-tokens');

    expect(reply.status, reply.text).toBe(201);
    expect(reply.text).toBe('');
    const location = reply.headers.get('location') ?? '';
    const match = /^(.*)\/payment-fields-tokens\/([^/]+)$/.exec(location);
    expect(match?.[1]).toBe(stack.baseUrl);
    expect(match?.[2]).toMatch(tokenPattern);
  });

  it('issues a different token each time', async () => {
    const tokens = await Promise.all([newToken(), newToken(), newToken()]);
    expect(new Set(tokens).size).toBe(3);
  });

  it('needs merchant credentials to create a token', async () => {
    const reply = await api.post('/payment-fields-tokens', undefined, { merchant: null });
    expectError(reply, 401, 'UNAUTHORIZED', 10401);
  });

  it('binds card data without credentials and answers the card’s brand, last four and country', async () => {
    const token = await newToken();

    const reply = await bind(token, { ccNumber: mastercard.cardNumber, cvv: '415', expDate: '11/2030' });

    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({
      ccType: 'MASTERCARD',
      last4Digits: '9903',
      issuingCountry: expect.any(String),
    });
    expect(reply.body.issuingCountry).toMatch(/^[a-z]{2}$/i);
    expectNoCardData(reply, [mastercard]);
  });

  it('sells with a bound token, vaulting a new shopper with the bound card', async () => {
    const token = await newToken();
    expect((await bind(token, { ccNumber: amex.cardNumber, cvv: '1234', expDate: '05/2032' })).status).toBe(
      200,
    );

    const sale = await api.post('/transactions', saleWith({ pfToken: token }));

    expect(sale.status, sale.text).toBe(200);
    expect(Number.isInteger(sale.body.vaultedShopperId)).toBe(true);
    expect(sale.body.creditCard).toMatchObject({ cardLastFourDigits: '0126', cardType: 'AMEX' });
    expect(sale.body.processingInfo.processingStatus).toBe('success');
    expectNoCardData(sale, [amex]);

    const shopper = await api.get(`/vaulted-shoppers/${sale.body.vaultedShopperId}`);
    expect(shopper.status, shopper.text).toBe(200);
    expect(cardsOf(shopper.body)).toEqual([amexShown]);
  });

  it('gives each token sale its own new shopper', async () => {
    const first = await api.post('/transactions', saleWith({ pfToken: await boundToken() }));
    const second = await api.post('/transactions', saleWith({ pfToken: await boundToken() }));

    expect(first.status, first.text).toBe(200);
    expect(second.status, second.text).toBe(200);
    expect(second.body.vaultedShopperId).not.toBe(first.body.vaultedShopperId);
  });

  it('is single use: a second sale, or a new binding, with a spent token is 400 20012', async () => {
    const token = await boundToken();
    const first = await api.post('/transactions', saleWith({ pfToken: token }));
    expect(first.status, first.text).toBe(200);

    expectError(
      await api.post('/transactions', saleWith({ pfToken: token })),
      400,
      'INVALID_PAYMENT_DETAILS',
      20012,
    );
    expectError(await bind(token), 400, 'INVALID_PAYMENT_DETAILS', 20012);
  });

  it('pays once when several sales race with one token', async () => {
    for (let round = 0; round < 4; round++) {
      const token = await boundToken();
      const replies = await Promise.all(
        Array.from({ length: 6 }, () => api.post('/transactions', saleWith({ pfToken: token }))),
      );
      expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
      for (const reply of replies.filter((r) => r.status !== 200)) {
        expectError(reply, 400, 'INVALID_PAYMENT_DETAILS', 20012);
      }
    }
  });

  it('refuses an unbound token in a sale with 400 20012', async () => {
    const token = await newToken();

    const reply = await api.post('/transactions', saleWith({ pfToken: token }));

    expectError(reply, 400, 'INVALID_PAYMENT_DETAILS', 20012, 'pfToken');
    // The failed sale did not spend the token: bound now, it sells.
    expect((await bind(token)).status).toBe(200);
    expect((await api.post('/transactions', saleWith({ pfToken: token }))).status).toBe(200);
  });

  it('refuses an unknown token in a sale and in a binding with 400 20012', async () => {
    const unknown = randomBytes(24).toString('base64url');

    expectError(
      await api.post('/transactions', saleWith({ pfToken: unknown })),
      400,
      'INVALID_PAYMENT_DETAILS',
      20012,
    );
    expectError(await bind(unknown), 400, 'INVALID_PAYMENT_DETAILS', 20012);
  });

  it('refuses another merchant’s token with 400 20012 and leaves it usable by its owner', async () => {
    const owner = await stack.newMerchant();
    const token = await boundToken(owner);

    expectError(
      await api.post('/transactions', saleWith({ pfToken: token })),
      400,
      'INVALID_PAYMENT_DETAILS',
      20012,
    );

    const ownSale = await api.post('/transactions', saleWith({ pfToken: token }), { merchant: owner });
    expect(ownSale.status, ownSale.text).toBe(200);
  });

  it('expires tokens after 60 minutes of the merchant’s clock, for binding and for sales', async () => {
    const merchant = await stack.newMerchant();
    const soldLate = await boundToken(merchant);
    const expiredBound = await boundToken(merchant);
    const expiredUnbound = await newToken(merchant);

    expect((await advanceClock(merchant, 'PT59M')).status).toBe(200);
    const stillValid = await api.post('/transactions', saleWith({ pfToken: soldLate }), { merchant });
    expect(stillValid.status, stillValid.text).toBe(200);

    expect((await advanceClock(merchant, 'PT2M')).status).toBe(200);
    expectError(await bind(expiredUnbound), 400, 'INVALID_PAYMENT_DETAILS', 20012);
    expectError(
      await api.post('/transactions', saleWith({ pfToken: expiredBound }), { merchant }),
      400,
      'INVALID_PAYMENT_DETAILS',
      20012,
    );
  });

  it('expires a token at PT61M in one step', async () => {
    const merchant = await stack.newMerchant();
    const bound = await boundToken(merchant);
    const unbound = await newToken(merchant);

    expect((await advanceClock(merchant, 'PT61M')).status).toBe(200);

    expectError(await bind(unbound), 400, 'INVALID_PAYMENT_DETAILS', 20012);
    expectError(
      await api.post('/transactions', saleWith({ pfToken: bound }), { merchant }),
      400,
      'INVALID_PAYMENT_DETAILS',
      20012,
    );
  });

  it.each([
    [
      'a number failing the Luhn check',
      { ccNumber: '4263982640269290', cvv: '837', expDate: '02/2031' },
      'ccNumber',
    ],
    ['a month 13', { ccNumber: visa.cardNumber, cvv: '837', expDate: '13/2031' }, 'expDate'],
    ['a YYYY-MM date', { ccNumber: visa.cardNumber, cvv: '837', expDate: '2031-02' }, 'expDate'],
    ['an expiry in the past', { ccNumber: visa.cardNumber, cvv: '837', expDate: '01/2020' }, 'expDate'],
    ['a 4-digit CVV on a VISA', { ccNumber: visa.cardNumber, cvv: '8371', expDate: '02/2031' }, 'cvv'],
    ['a 3-digit CVV on an AMEX', { ccNumber: amex.cardNumber, cvv: '123', expDate: '05/2032' }, 'cvv'],
    ['a 2-digit CVV', { ccNumber: visa.cardNumber, cvv: '83', expDate: '02/2031' }, 'cvv'],
  ])('refuses to bind %s with 400 10001, echoing no card data', async (_, card, property) => {
    const token = await newToken();

    const reply = await bind(token, card);

    const message = expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001, property);
    expect(reply.text).not.toContain(card.ccNumber);
    expect(reply.text).not.toMatch(new RegExp(`\\b${card.cvv}\\b`));
    if (property !== 'expDate') expect(message.invalidProperty?.messageValue).toBeUndefined();
    // The refused binding left the token unbound.
    expectError(
      await api.post('/transactions', saleWith({ pfToken: token })),
      400,
      'INVALID_PAYMENT_DETAILS',
      20012,
    );
  });

  it('vaults the bound card of a token sent in POST /vaulted-shoppers, spending the token', async () => {
    const token = await newToken();
    expect(
      (await bind(token, { ccNumber: mastercard.cardNumber, cvv: '415', expDate: '11/2030' })).status,
    ).toBe(200);

    const reply = await api.post(
      '/vaulted-shoppers',
      shopperBody({ paymentSources: { creditCardInfo: [{ billingContactInfo: billing, pfToken: token }] } }),
    );

    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.paymentSources.creditCardInfo).toEqual([
      { billingContactInfo: billing, creditCard: mastercardShown },
    ]);
    expectNoCardData(reply, [mastercard]);

    const charged = await api.post(
      '/transactions',
      saleWith({ vaultedShopperId: reply.body.vaultedShopperId }),
    );
    expect(charged.status, charged.text).toBe(200);
    expect(charged.body.creditCard.cardLastFourDigits).toBe('9903');

    expectError(
      await api.post('/transactions', saleWith({ pfToken: token })),
      400,
      'INVALID_PAYMENT_DETAILS',
      20012,
    );
  });

  it('refuses an unbound token in POST /vaulted-shoppers with 400 20012 and creates no shopper', async () => {
    const merchantShopperId = unique('unbound');
    const token = await newToken();

    const reply = await api.post(
      '/vaulted-shoppers',
      shopperBody({ merchantShopperId, paymentSources: { creditCardInfo: [{ pfToken: token }] } }),
    );

    expectError(reply, 400, 'INVALID_PAYMENT_DETAILS', 20012);
    expectError(
      await api.get(`/vaulted-shoppers/merchant/${merchantShopperId}`),
      404,
      'SHOPPER_NOT_FOUND',
      20002,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// Sandbox clock
// ---------------------------------------------------------------------------------------------------------

describe('sandbox clock', () => {
  const day = 86_400;

  it('GET answers the merchant’s now and a zero offset for a new merchant', async () => {
    const merchant = await stack.newMerchant();

    const reply = await api.get('/sandbox/clock', { merchant });

    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ now: expect.any(String), offsetSeconds: 0 });
    expect(Math.abs(Date.parse(reply.body.now) - Date.now())).toBeLessThan(60_000);
  });

  it('PUT advanceBy P9D moves now nine days ahead, and advances accumulate', async () => {
    const merchant = await stack.newMerchant();

    const nine = await advanceClock(merchant, 'P9D');
    expect(nine.status, nine.text).toBe(200);
    expect(nine.body.offsetSeconds).toBe(9 * day);
    expect(Math.abs(Date.parse(nine.body.now) - (Date.now() + 9 * day * 1000))).toBeLessThan(60_000);

    const read = await api.get('/sandbox/clock', { merchant });
    expect(read.body.offsetSeconds).toBe(9 * day);

    const more = await advanceClock(merchant, 'PT1H30M');
    expect(more.status, more.text).toBe(200);
    expect(more.body.offsetSeconds).toBe(9 * day + 5400);

    const week = await advanceClock(merchant, 'P1W');
    expect(week.body.offsetSeconds).toBe(16 * day + 5400);
    expect(Math.abs(Date.parse(week.body.now) - (Date.now() + (16 * day + 5400) * 1000))).toBeLessThan(
      60_000,
    );
  });

  it.each(['9 days', 'P', 'PT', '-P1D', 'P1Y', 'P1M', 'P1DT', 'P3651D', ''])(
    'refuses advanceBy %j with 400 10001 and leaves the clock alone',
    async (advanceBy) => {
      const merchant = await stack.newMerchant();

      const reply = await advanceClock(merchant, advanceBy);

      const message = expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001, 'advanceBy');
      expect(message.description).toContain('advanceBy');
      const read = await api.get('/sandbox/clock', { merchant });
      expect(read.body.offsetSeconds).toBe(0);
    },
  );

  it('refuses a PUT without advanceBy with 400 10001', async () => {
    const merchant = await stack.newMerchant();
    const reply = await api.put('/sandbox/clock', {}, { merchant });
    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001, 'advanceBy');
  });

  it('accepts an XML request and answers in XML', async () => {
    const merchant = await stack.newMerchant();
    const xml = '<sandbox-clock xmlns="http://ws.plimus.com"><advance-by>PT2H</advance-by></sandbox-clock>';

    const reply = await api.put('/sandbox/clock', xml, { merchant, format: 'xml', ...clockXmlShape });

    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/xml');
    expect(reply.text).toContain('xmlns="http://ws.plimus.com"');
    expect(reply.body.offsetSeconds).toBe('7200');
    expect(Math.abs(Date.parse(reply.body.now) - (Date.now() + 7200 * 1000))).toBeLessThan(60_000);

    const read = await api.get('/sandbox/clock', { merchant, accept: 'application/xml', ...clockXmlShape });
    expect(read.body.offsetSeconds).toBe('7200');
  });

  it('refuses a bad XML duration with an XML error', async () => {
    const merchant = await stack.newMerchant();
    const xml = '<sandbox-clock xmlns="http://ws.plimus.com"><advance-by>P1Y</advance-by></sandbox-clock>';

    const reply = await api.put('/sandbox/clock', xml, { merchant, format: 'xml' });

    expect(reply.headers.get('content-type')).toContain('application/xml');
    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001, 'advanceBy');
  });

  it('is per merchant: advancing one merchant’s clock leaves another’s unchanged', async () => {
    const moved = await stack.newMerchant();
    const still = await stack.newMerchant();

    expect((await advanceClock(moved, 'P3D')).body.offsetSeconds).toBe(3 * day);

    const other = await api.get('/sandbox/clock', { merchant: still });
    expect(other.body.offsetSeconds).toBe(0);
    expect(Math.abs(Date.parse(other.body.now) - Date.now())).toBeLessThan(60_000);
  });

  it('needs merchant credentials', async () => {
    expectError(await api.get('/sandbox/clock', { merchant: null }), 401, 'UNAUTHORIZED', 10401);
  });
});

describe('sandbox clock in live mode', () => {
  let live: Stack;
  let liveApi: ReturnType<typeof client>;

  beforeAll(async () => {
    live = await startStack({ mode: 'live' });
    liveApi = client(live);
  });
  afterAll(() => live?.close());

  it('GET /sandbox/clock is 404', async () => {
    expectError(await liveApi.get('/sandbox/clock'), 404, 'RESOURCE_NOT_FOUND', 10404);
  });

  it('PUT /sandbox/clock is 404, even with a valid duration', async () => {
    expectError(await liveApi.put('/sandbox/clock', { advanceBy: 'P9D' }), 404, 'RESOURCE_NOT_FOUND', 10404);
  });

  it('still serves the rest of the interface', async () => {
    const reply = await liveApi.post('/payment-fields-tokens');
    expect(reply.status, reply.text).toBe(201);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Trailing slash and empty query
// ---------------------------------------------------------------------------------------------------------

describe('trailing slash and empty ?', () => {
  it('GET /vaulted-shoppers/{id}/ and /vaulted-shoppers/{id}? answer as without them', async () => {
    const created = await createShopper();
    const path = `/vaulted-shoppers/${created.vaultedShopperId}`;

    for (const variant of [`${path}/`, `${path}?`]) {
      const reply = await api.get(variant);
      expect(reply.status, `${variant}: ${reply.text}`).toBe(200);
      expect(reply.body).toEqual(created);
    }
  });

  it('GET /vaulted-shoppers/merchant/{merchantShopperId}/ and ? answer as without them', async () => {
    const created = await createShopper();
    const path = `/vaulted-shoppers/merchant/${created.merchantShopperId}`;

    for (const variant of [`${path}/`, `${path}?`]) {
      const reply = await api.get(variant);
      expect(reply.status, `${variant}: ${reply.text}`).toBe(200);
      expect(reply.body).toEqual(created);
    }
  });

  it('POST /vaulted-shoppers/ and PUT /sandbox/clock? work too', async () => {
    const created = await api.post('/vaulted-shoppers/', shopperBody());
    expect(created.status, created.text).toBe(200);

    const merchant = await stack.newMerchant();
    const clock = await api.put('/sandbox/clock?', { advanceBy: 'PT1M' }, { merchant });
    expect(clock.status, clock.text).toBe(200);
    expect(clock.body.offsetSeconds).toBe(60);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Last: nothing above left card data in the logs
// ---------------------------------------------------------------------------------------------------------

describe('logs', () => {
  it('never carry a full card number', () => {
    const logs = stack.logs.join('\n');
    expect(stack.logs.length).toBeGreaterThan(0);
    for (const number of [visa, mastercard, amex].map((card) => card.cardNumber).concat('4263982640269290')) {
      expect(logs).not.toContain(number);
    }
  });
});
