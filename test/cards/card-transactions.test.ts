import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  as,
  type CallOptions,
  client,
  expectStatus,
  type Reply,
  saleBody,
  xmlDocument,
} from '../support/http.ts';
import { paymentRowCounts, type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { captureStdout } from '../support/stdout.ts';

// ---------------------------------------------------------------------------------------------------------
// Test data (see docs/conformance.md, Sandbox processor) and small helpers
// ---------------------------------------------------------------------------------------------------------

const VISA = { cardNumber: '4263982640269299', securityCode: '837' };
const AMEX = { cardNumber: '374245455400126', securityCode: '1234' };
const DECLINING_VISA = '4917484589897107';
const DECLINING_AMEX = '378282246310005';
const NOT_LUHN = '4263982640269290';
/** Every card number and CVV this file sends: none may ever come back or reach a log. */
const CARD_NUMBERS = [VISA.cardNumber, AMEX.cardNumber, DECLINING_VISA, DECLINING_AMEX, NOT_LUHN];
const SECURITY_CODES = [VISA.securityCode, AMEX.securityCode, '000', '12345'];

const NAMESPACE = 'http://ws.plimus.com';
const asCardTransaction: CallOptions = {
  format: 'xml',
  shape: { root: 'card-transaction', upperCaseValues: ['processingStatus'] },
};
const asRefund: CallOptions = { format: 'xml', shape: { root: 'refund' } };

let stack: Stack;
let api: ReturnType<typeof client>;
let db: pg.Pool;
let stdout: ReturnType<typeof captureStdout>;

beforeAll(async () => {
  stdout = captureStdout();
  stack = await startStack();
  api = client(stack);
  db = stack.db;
});

afterAll(async () => {
  stdout?.restore();
  await stack?.close();
});

const merchantTransactionId = () => `mtx-${randomUUID()}`;

function card(overrides: Record<string, unknown> = {}) {
  return { ...VISA, expirationMonth: '02', expirationYear: '2031', ...overrides };
}

function xmlSale(overrides: Record<string, unknown> = {}): string {
  return xmlDocument('card-transaction', { ...saleBody({ amount: '25.50' }), ...overrides });
}

function expectOk(reply: Reply, status = 200): void {
  expect(reply.status, reply.text).toBe(status);
}

/** POST /transactions that must succeed; returns the JSON body. */
async function create(overrides: Record<string, unknown> = {}, merchant = stack.merchant) {
  const reply = await api.post('/transactions', saleBody(overrides), { merchant });
  expectOk(reply);
  return reply.body;
}

const authOnly = (overrides: Record<string, unknown> = {}, merchant = stack.merchant) =>
  create({ cardTransactionType: 'AUTH_ONLY', ...overrides }, merchant);

const capture = (transactionId: string, extra: Record<string, unknown> = {}, merchant = stack.merchant) =>
  api.put('/transactions', { cardTransactionType: 'CAPTURE', transactionId, ...extra }, { merchant });

const reverse = (by: Record<string, unknown>, merchant = stack.merchant) =>
  api.put('/transactions', { cardTransactionType: 'AUTH_REVERSAL', ...by }, { merchant });

const refund = (transactionId: string, body?: unknown, options: CallOptions = {}) =>
  api.post(`/transactions/refund/${transactionId}`, body, options);

const refundByQuery = (transactionId: string, query = '', merchant = stack.merchant) =>
  api.put(`/transactions/${transactionId}/refund${query}`, undefined, { merchant });

/**
 * The interface's error body, JSON or XML: `{"message":[{errorName, code, description, invalidProperty?}]}`.
 * Returns the first message.
 */
function expectError(reply: Reply, status: number, errorName: string, code: number) {
  expect(reply.status, reply.text).toBe(status);
  const xml = (reply.headers.get('content-type') ?? '').includes('xml');
  expect(reply.headers.get('content-type')).toMatch(xml ? /application\/xml/ : /application\/json/);
  const messages = reply.body?.message;
  expect(Array.isArray(messages) && messages.length > 0, reply.text).toBe(true);
  for (const message of messages) {
    const keys = Object.keys(message).filter((key) => key !== 'invalidProperty');
    expect(keys.sort()).toEqual(['code', 'description', 'errorName']);
    expect(typeof message.description).toBe('string');
    if (!xml) expect(typeof message.code).toBe('number');
    if (message.invalidProperty !== undefined) expect(typeof message.invalidProperty.name).toBe('string');
  }
  const [first] = messages;
  expect(first.errorName).toBe(errorName);
  expect(Number(first.code)).toBe(code);
  return first;
}

/**
 * No card number anywhere, no CVV standing alone (its digits may occur inside longer random ids), and no
 * property or element that carries either.
 */
function expectNoCardData(text: string): void {
  for (const number of CARD_NUMBERS) expect(text).not.toContain(number);
  for (const code of SECURITY_CODES) expect(text).not.toMatch(new RegExp(`(?<![0-9])${code}(?![0-9])`));
  expect(text).not.toMatch(/"(securityCode|cardNumber)"\s*:|<(security-code|card-number)>/);
}

const rowCounts = (merchant: TestMerchant) => paymentRowCounts(db, merchant);

// ---------------------------------------------------------------------------------------------------------

describe('AUTH_CAPTURE sale', () => {
  it('charges card data in JSON: transaction, new shopper, card response fields, processing info', async () => {
    const id = merchantTransactionId();
    const reply = await api.post('/transactions', saleBody({ merchantTransactionId: id }));
    expectOk(reply);
    expect(reply.headers.get('content-type')).toMatch(/application\/json/);
    const body = reply.body;
    expect(body).toMatchObject({
      cardTransactionType: 'AUTH_CAPTURE',
      merchantTransactionId: id,
      softDescriptor: 'PAYWIRE TEST',
      amount: 25.5,
      currency: 'USD',
      cardHolderInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139' },
      creditCard: {
        cardLastFourDigits: '9299',
        cardType: 'VISA',
        expirationMonth: '02',
        expirationYear: '2031',
      },
      processingInfo: { processingStatus: 'success' },
    });
    expect(body.transactionId).toMatch(/^\d+$/);
    expect(Number.isInteger(body.vaultedShopperId)).toBe(true);
    expect(['CREDIT', 'DEBIT']).toContain(body.creditCard.cardSubType);
    expect(body.creditCard.cardCategory).toMatch(/^[A-Z_]+$/);
    expect(['MA', 'NC', 'ND', 'NR', 'U']).toContain(body.processingInfo.cvvResponseCode);
    for (const avs of ['avsResponseCodeZip', 'avsResponseCodeAddress', 'avsResponseCodeName']) {
      expect(['M', 'N', 'U']).toContain(body.processingInfo[avs]);
    }
    expectNoCardData(reply.text);

    // The shopper is new and vaulted with the card charged.
    const shopper = await api.get(`/vaulted-shoppers/${body.vaultedShopperId}`);
    expectOk(shopper);
    expect(shopper.body.vaultedShopperId).toBe(body.vaultedShopperId);
    expect(shopper.body.paymentSources.creditCardInfo).toEqual([
      expect.objectContaining({
        creditCard: expect.objectContaining({ cardLastFourDigits: '9299', cardType: 'VISA' }),
      }),
    ]);
    expectNoCardData(shopper.text);
  });

  it('creates a different shopper for each first-time sale', async () => {
    const first = await create();
    const second = await create();
    expect(second.vaultedShopperId).not.toBe(first.vaultedShopperId);
    expect(second.transactionId).not.toBe(first.transactionId);
  });

  it('charges card data in XML and answers XML with SUCCESS and two-decimal amounts', async () => {
    const id = merchantTransactionId();
    const reply = await api.post('/transactions', xmlSale({ merchantTransactionId: id }), asCardTransaction);
    expectOk(reply);
    expect(reply.headers.get('content-type')).toMatch(/application\/xml/);
    const { text, body } = reply;
    expect(text).toContain(`<card-transaction xmlns="${NAMESPACE}">`);
    expect(text).toContain('<card-transaction-type>AUTH_CAPTURE</card-transaction-type>');
    expect(text).toContain('<amount>25.50</amount>');
    expect(text).toContain('<currency>USD</currency>');
    expect(text).toContain('<soft-descriptor>PAYWIRE TEST</soft-descriptor>');
    expect(text).toContain(`<merchant-transaction-id>${id}</merchant-transaction-id>`);
    expect(text).toContain('<processing-status>SUCCESS</processing-status>');
    expect(text).toContain('<card-last-four-digits>9299</card-last-four-digits>');
    expect(text).toContain('<card-type>VISA</card-type>');
    expect(body.transactionId).toMatch(/^\d+$/);
    expect(body.vaultedShopperId).toMatch(/^\d+$/);
    expect(body).toMatchObject({
      cardHolderInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139' },
      creditCard: { expirationMonth: '02', expirationYear: '2031' },
      processingInfo: { processingStatus: 'SUCCESS' },
    });
    expect(['CREDIT', 'DEBIT']).toContain(body.creditCard.cardSubType);
    expect(body.creditCard.cardCategory).toMatch(/^[A-Z_]+$/);
    expectNoCardData(text);
  });

  it('answers JSON to an XML request that accepts JSON, and XML to a JSON request that accepts XML', async () => {
    const json = await api.post('/transactions', xmlSale(), { format: 'xml', accept: 'application/json' });
    expectOk(json);
    expect(json.body.processingInfo.processingStatus).toBe('success');
    expect(json.body.amount).toBe(25.5);

    const xml = await api.post('/transactions', saleBody({ amount: 25 }), {
      accept: 'application/xml',
      shape: asCardTransaction.shape,
    });
    expectOk(xml);
    expect(xml.text).toContain('<amount>25.00</amount>');
    expect(xml.text).toContain('<processing-status>SUCCESS</processing-status>');
  });

  it('writes a JPY amount with no decimals', async () => {
    const xml = await api.post(
      '/transactions',
      xmlSale({ amount: '1000', currency: 'JPY' }),
      asCardTransaction,
    );
    expectOk(xml);
    expect(xml.text).toContain('<amount>1000</amount>');
    expect(xml.text).toContain('<currency>JPY</currency>');

    const json = await create({ amount: 1000, currency: 'JPY' });
    expect(json).toMatchObject({ amount: 1000, currency: 'JPY' });
  });

  it('accepts the amount as a numeric string', async () => {
    const body = await create({ amount: '25.50' });
    expect(body.amount).toBe(25.5);
  });

  it('charges an AMEX with its 4-digit security code', async () => {
    const body = await create({ creditCard: card(AMEX) });
    expect(body.creditCard).toMatchObject({ cardLastFourDigits: '0126', cardType: 'AMEX' });
  });
});

describe('AUTH_ONLY and CAPTURE', () => {
  it('captures the full authorization: same transactionId, type CAPTURE', async () => {
    const auth = await authOnly();
    expect(auth.cardTransactionType).toBe('AUTH_ONLY');
    expect(auth.processingInfo.processingStatus).toBe('success');

    const reply = await capture(auth.transactionId);
    expectOk(reply);
    expect(reply.body).toMatchObject({
      cardTransactionType: 'CAPTURE',
      transactionId: auth.transactionId,
      amount: 25.5,
      currency: 'USD',
      vaultedShopperId: auth.vaultedShopperId,
      processingInfo: { processingStatus: 'success' },
    });
  });

  it('captures in XML', async () => {
    const auth = await authOnly();
    const reply = await api.put(
      '/transactions',
      xmlDocument('card-transaction', { cardTransactionType: 'CAPTURE', transactionId: auth.transactionId }),
      asCardTransaction,
    );
    expectOk(reply);
    expect(reply.text).toContain('<card-transaction-type>CAPTURE</card-transaction-type>');
    expect(reply.text).toContain(`<transaction-id>${auth.transactionId}</transaction-id>`);
    expect(reply.text).toContain('<processing-status>SUCCESS</processing-status>');
  });

  it('captures part of the authorization', async () => {
    const auth = await authOnly({ amount: 100 });
    const reply = await capture(auth.transactionId, { amount: 40.25 });
    expectOk(reply);
    expect(reply.body).toMatchObject({
      cardTransactionType: 'CAPTURE',
      transactionId: auth.transactionId,
      amount: 40.25,
    });
    // Only what was captured can be refunded.
    expectError(
      await refund(auth.transactionId, { amount: 40.26 }),
      400,
      'REFUND_AMOUNT_EXCEEDS_BALANCE',
      20011,
    );
    expectOk(await refund(auth.transactionId, { amount: 40.25 }));
  });

  it('refuses a capture above the authorized amount and leaves the authorization open', async () => {
    const auth = await authOnly({ amount: 10 });
    const error = expectError(
      await capture(auth.transactionId, { amount: 10.01 }),
      400,
      'VALIDATION_GENERAL_FAILURE',
      10001,
    );
    expect(error.invalidProperty?.name).toBe('amount');
    expectOk(await capture(auth.transactionId, { amount: 10 }));
  });

  it('refuses a capture amount with more fraction digits than the currency has', async () => {
    const auth = await authOnly();
    expectError(
      await capture(auth.transactionId, { amount: '1.001' }),
      400,
      'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS',
      14021,
    );
  });

  it('refuses a second capture with 20010 TRANSACTION_ALREADY_CAPTURED', async () => {
    const auth = await authOnly();
    expectOk(await capture(auth.transactionId));
    expectError(await capture(auth.transactionId), 400, 'TRANSACTION_ALREADY_CAPTURED', 20010);
  });

  it('refuses to capture a reversed authorization', async () => {
    const auth = await authOnly();
    expectOk(await reverse({ transactionId: auth.transactionId }));
    expectError(await capture(auth.transactionId), 400, 'AUTHORIZATION_AMOUNT_ALREADY_REVERSED', 14002);
  });

  it('refuses to capture an AUTH_CAPTURE sale', async () => {
    const sale = await create();
    expectError(await capture(sale.transactionId), 400, 'TRANSACTION_ALREADY_CAPTURED', 20010);
  });

  it('refuses to capture an unknown transaction', async () => {
    expectError(await capture('999999999999'), 400, 'AUTHORIZATION_NOT_FOUND', 14002);
  });

  it('lets exactly one of 10 concurrent captures of the same authorization through', async () => {
    const auth = await authOnly();
    const replies = await Promise.all(Array.from({ length: 10 }, () => capture(auth.transactionId)));
    const statuses = replies.map((reply) => reply.status).sort();
    expect(statuses, replies.map((reply) => reply.text).join('\n')).toEqual([
      200, 400, 400, 400, 400, 400, 400, 400, 400, 400,
    ]);
    for (const reply of replies.filter((r) => r.status !== 200)) {
      expectError(reply, 400, 'TRANSACTION_ALREADY_CAPTURED', 20010);
    }
    const { rows } = await db.query('select status, captured_minor from card_transaction where id = $1', [
      auth.transactionId,
    ]);
    expect(rows).toEqual([{ status: 'CAPTURED', captured_minor: '2550' }]);
  });
});

describe('AUTH_REVERSAL', () => {
  it('reverses by transactionId in XML and repeats the authorization (the card transaction endpoint)', async () => {
    const auth = await api.post(
      '/transactions',
      xmlSale({ cardTransactionType: 'AUTH_ONLY', merchantTransactionId: merchantTransactionId() }),
      asCardTransaction,
    );
    expectOk(auth);
    const transactionId = auth.body.transactionId;
    const reversal = await api.put('/transactions', undefined, {
      ...asCardTransaction,
      raw: `<?xml version="1.0" encoding="UTF-8"?>
<card-transaction xmlns="${NAMESPACE}">
  <card-transaction-type>AUTH_REVERSAL</card-transaction-type>
  <transaction-id>${transactionId}</transaction-id>
</card-transaction>`,
    });
    expectOk(reversal);
    expect(reversal.headers.get('content-type')).toMatch(/application\/xml/);
    expect(reversal.text).toContain('<card-transaction-type>AUTH_REVERSAL</card-transaction-type>');
    expect(reversal.text).toContain(`<transaction-id>${transactionId}</transaction-id>`);
    expect(reversal.text).toContain('<amount>25.50</amount>');
    expect(reversal.body).toEqual({ ...auth.body, cardTransactionType: 'AUTH_REVERSAL' });
  });

  it('reverses by merchantTransactionId in JSON', async () => {
    const id = merchantTransactionId();
    const auth = await authOnly({ merchantTransactionId: id });
    const reply = await reverse({ merchantTransactionId: id });
    expectOk(reply);
    expect(reply.body).toEqual({ ...auth, cardTransactionType: 'AUTH_REVERSAL' });
    expect(reply.body.transactionId).toBe(auth.transactionId);
  });

  it('reverses by merchantTransactionId in XML', async () => {
    const id = merchantTransactionId();
    const auth = await authOnly({ merchantTransactionId: id });
    const reply = await api.put(
      '/transactions',
      xmlDocument('card-transaction', { cardTransactionType: 'AUTH_REVERSAL', merchantTransactionId: id }),
      asCardTransaction,
    );
    expectOk(reply);
    expect(reply.text).toContain('<card-transaction-type>AUTH_REVERSAL</card-transaction-type>');
    expect(reply.text).toContain(`<merchant-transaction-id>${id}</merchant-transaction-id>`);
    expect(reply.text).toContain(`<transaction-id>${auth.transactionId}</transaction-id>`);
  });

  it('prefers transactionId when both ids are given', async () => {
    const first = await authOnly({ merchantTransactionId: merchantTransactionId() });
    const second = await authOnly({ merchantTransactionId: merchantTransactionId() });
    const reply = await reverse({
      transactionId: first.transactionId,
      merchantTransactionId: second.merchantTransactionId,
    });
    expectOk(reply);
    expect(reply.body.transactionId).toBe(first.transactionId);
    expect((await api.get(`/transactions/${second.transactionId}`)).body.cardTransactionType).toBe(
      'AUTH_ONLY',
    );
  });

  it('needs transactionId or merchantTransactionId', async () => {
    expectError(await reverse({}), 400, 'VALIDATION_GENERAL_FAILURE', 10001);
  });

  it('answers 14002 AUTHORIZATION_NOT_FOUND for an unknown id', async () => {
    expectError(await reverse({ transactionId: '999999999999' }), 400, 'AUTHORIZATION_NOT_FOUND', 14002);
    expectError(
      await reverse({ merchantTransactionId: merchantTransactionId() }),
      400,
      'AUTHORIZATION_NOT_FOUND',
      14002,
    );
  });

  it('refuses to reverse twice, and to reverse a captured sale', async () => {
    const auth = await authOnly();
    expectOk(await reverse({ transactionId: auth.transactionId }));
    expectError(
      await reverse({ transactionId: auth.transactionId }),
      400,
      'AUTHORIZATION_AMOUNT_ALREADY_REVERSED',
      14002,
    );
    const sale = await create();
    expect((await reverse({ transactionId: sale.transactionId })).status).toBe(400);
    expect((await api.get(`/transactions/${sale.transactionId}`)).body.cardTransactionType).toBe(
      'AUTH_CAPTURE',
    );
  });

  it('still reverses 7 days later by the merchant clock', async () => {
    const merchant = await stack.newMerchant();
    const auth = await authOnly({}, merchant);
    expectOk(await api.put('/sandbox/clock', { advanceBy: 'P7D' }, as(merchant)));
    const reply = await reverse({ transactionId: auth.transactionId }, merchant);
    expectOk(reply);
    expect(reply.body.cardTransactionType).toBe('AUTH_REVERSAL');
  });

  it('refuses a reversal 9 days later with 14002 AUTHORIZATION_EXPIRED', async () => {
    const merchant = await stack.newMerchant();
    const auth = await authOnly({}, merchant);
    expectOk(await api.put('/sandbox/clock', { advanceBy: 'P9D' }, as(merchant)));
    expectError(
      await reverse({ transactionId: auth.transactionId }, merchant),
      400,
      'AUTHORIZATION_EXPIRED',
      14002,
    );
    const after = await api.get(`/transactions/${auth.transactionId}`, as(merchant));
    expect(after.body.cardTransactionType).toBe('AUTH_ONLY');
  });
});

describe('transaction type and HTTP verb', () => {
  it('answers 405 code 85 to CAPTURE sent with POST', async () => {
    const auth = await authOnly();
    const reply = await api.post('/transactions', {
      cardTransactionType: 'CAPTURE',
      transactionId: auth.transactionId,
    });
    expectError(reply, 405, 'INVALID_HTTP_METHOD', 85);
    expect((await api.get(`/transactions/${auth.transactionId}`)).body.cardTransactionType).toBe('AUTH_ONLY');
  });

  it('answers 405 code 85 to AUTH_REVERSAL sent with POST', async () => {
    const auth = await authOnly();
    const reply = await api.post('/transactions', {
      cardTransactionType: 'AUTH_REVERSAL',
      transactionId: auth.transactionId,
    });
    expectError(reply, 405, 'INVALID_HTTP_METHOD', 85);
  });

  it('answers 405 code 85 to AUTH_CAPTURE sent with PUT, charging nothing', async () => {
    const before = await rowCounts(stack.merchant);
    expectError(await api.put('/transactions', saleBody()), 405, 'INVALID_HTTP_METHOD', 85);
    expectError(
      await api.put('/transactions', xmlSale({ cardTransactionType: 'AUTH_ONLY' }), { format: 'xml' }),
      405,
      'INVALID_HTTP_METHOD',
      85,
    );
    expect(await rowCounts(stack.merchant)).toEqual(before);
  });

  it('answers 400 code 7 to an unknown or missing type', async () => {
    expectError(
      await api.post('/transactions', saleBody({ cardTransactionType: 'PURCHASE' })),
      400,
      'INVALID_TRANSACTION_TYPE',
      7,
    );
    expectError(
      await api.put('/transactions', { cardTransactionType: 'REFUND', transactionId: '1' }),
      400,
      'INVALID_TRANSACTION_TYPE',
      7,
    );
    expectError(
      await api.post('/transactions', saleBody({ cardTransactionType: undefined })),
      400,
      'INVALID_TRANSACTION_TYPE',
      7,
    );
  });
});

describe('GET /transactions/{id}', () => {
  it('returns the same body as the sale, in JSON and XML', async () => {
    const reply = await api.post(
      '/transactions',
      saleBody({ merchantTransactionId: merchantTransactionId() }),
    );
    expectOk(reply);
    const json = await api.get(`/transactions/${reply.body.transactionId}`);
    expectOk(json);
    expect(json.body).toEqual(reply.body);

    const xmlSaleReply = await api.post('/transactions', xmlSale(), asCardTransaction);
    expectOk(xmlSaleReply);
    const xml = await api.get(`/transactions/${xmlSaleReply.body.transactionId}`, {
      accept: 'application/xml',
      shape: asCardTransaction.shape,
    });
    expectOk(xml);
    expect(xml.body).toEqual(xmlSaleReply.body);
  });

  it('writes the XML elements in the same order as the original response', async () => {
    const sale = await api.post('/transactions', xmlSale(), asCardTransaction);
    expectOk(sale);
    const read = await api.get(`/transactions/${sale.body.transactionId}`, { accept: 'application/xml' });
    expectOk(read);
    expect(read.text).toBe(sale.text);
  });

  it('shows the current state after a capture', async () => {
    const auth = await authOnly();
    expect((await api.get(`/transactions/${auth.transactionId}`)).body).toEqual(auth);
    const captured = await capture(auth.transactionId);
    expectOk(captured);
    const reply = await api.get(`/transactions/${auth.transactionId}`);
    expectOk(reply);
    expect(reply.body).toEqual(captured.body);
    expect(reply.body.cardTransactionType).toBe('CAPTURE');
  });

  it('shows the current state after a reversal', async () => {
    const auth = await authOnly();
    const reversed = await reverse({ transactionId: auth.transactionId });
    expectOk(reversed);
    const reply = await api.get(`/transactions/${auth.transactionId}`);
    expect(reply.body).toEqual(reversed.body);
    expect(reply.body.cardTransactionType).toBe('AUTH_REVERSAL');
  });

  it('answers 404 20001 for an unknown id', async () => {
    expectError(await api.get('/transactions/999999999999'), 404, 'TRANSACTION_NOT_FOUND', 20001);
    expectError(await api.get('/transactions/not-an-id'), 404, 'TRANSACTION_NOT_FOUND', 20001);
    expectError(
      await api.get('/transactions/999999999999', { accept: 'application/xml' }),
      404,
      'TRANSACTION_NOT_FOUND',
      20001,
    );
  });
});

describe("another merchant's transaction", () => {
  let other: TestMerchant;
  beforeAll(async () => {
    other = await stack.newMerchant();
  });

  it('is not found, exactly like an unknown id', async () => {
    const sale = await create();
    const theirs = await api.get(`/transactions/${sale.transactionId}`, as(other));
    const unknown = await api.get('/transactions/999999999999', as(other));
    expectError(theirs, 404, 'TRANSACTION_NOT_FOUND', 20001);
    expect(theirs.text).not.toContain('Lovelace');
    expect(theirs.text).toBe(unknown.text.replace('999999999999', sale.transactionId));
  });

  it('cannot be captured, reversed or refunded, and stays unchanged', async () => {
    const auth = await authOnly();
    expectError(await capture(auth.transactionId, {}, other), 400, 'AUTHORIZATION_NOT_FOUND', 14002);
    expectError(
      await reverse({ transactionId: auth.transactionId }, other),
      400,
      'AUTHORIZATION_NOT_FOUND',
      14002,
    );
    expectError(await refund(auth.transactionId, undefined, as(other)), 404, 'TRANSACTION_NOT_FOUND', 20001);
    expectError(await refundByQuery(auth.transactionId, '', other), 404, 'TRANSACTION_NOT_FOUND', 20001);
    expect((await api.get(`/transactions/${auth.transactionId}`)).body).toEqual(auth);

    const sale = await create();
    expectError(
      await refundByQuery(sale.transactionId, '?amount=1', other),
      404,
      'TRANSACTION_NOT_FOUND',
      20001,
    );
    // The whole captured amount is still refundable by its owner.
    const full = await refund(sale.transactionId);
    expectOk(full);
    expect(full.body.amount).toBe(25.5);
  });

  it('cannot be found by merchantTransactionId in a reversal', async () => {
    const id = merchantTransactionId();
    await authOnly({ merchantTransactionId: id });
    expectError(await reverse({ merchantTransactionId: id }, other), 400, 'AUTHORIZATION_NOT_FOUND', 14002);
  });

  it("refuses to charge another merchant's vaulted shopper", async () => {
    const sale = await create();
    expectError(
      await api.post(
        '/transactions',
        {
          cardTransactionType: 'AUTH_CAPTURE',
          amount: 5,
          currency: 'USD',
          vaultedShopperId: sale.vaultedShopperId,
        },
        as(other),
      ),
      404,
      'SHOPPER_NOT_FOUND',
      20002,
    );
  });
});

describe('refunds', () => {
  it('PUT /transactions/{id}/refund?amount= answers 204 with no body', async () => {
    const sale = await create();
    const reply = await refundByQuery(sale.transactionId, '?amount=5&reason=damaged');
    expect(reply.status, reply.text).toBe(204);
    expect(reply.text).toBe('');
  });

  it('POST /transactions/refund/{id} with a JSON body answers the refund', async () => {
    const sale = await create();
    const reply = await refund(sale.transactionId, { amount: 10, reason: 'not delivered' });
    expectOk(reply);
    expect(reply.body).toEqual({
      refundTransactionId: expect.stringMatching(/^\d+$/),
      transactionId: sale.transactionId,
      amount: 10,
      currency: 'USD',
      date: expect.stringMatching(/^\d{2}\/\d{2}\/\d{4}$/),
      reason: 'not delivered',
      refundStatus: expect.any(String),
    });
  });

  it('POST /transactions/refund/{id} with an XML body answers XML', async () => {
    const sale = await create();
    const reply = await refund(
      sale.transactionId,
      xmlDocument('refund', { amount: '10.50', reason: 'wrong size' }),
      asRefund,
    );
    expectOk(reply);
    expect(reply.text).toContain(`<refund xmlns="${NAMESPACE}">`);
    expect(reply.text).toContain('<amount>10.50</amount>');
    expect(reply.body).toMatchObject({ amount: '10.50', currency: 'USD', reason: 'wrong size' });
    // The schema's refund has no transaction-id (JSON carries it: the refunded transaction).
    expect(reply.body.transactionId).toBeUndefined();
    expect(reply.body.refundTransactionId).toMatch(/^\d+$/);
    expect(reply.body.refundStatus).toEqual(expect.any(String));
  });

  it('accumulates partial refunds and never refunds beyond the captured amount', async () => {
    const sale = await create(); // 25.50
    expect((await refundByQuery(sale.transactionId, '?amount=5')).status).toBe(204);
    expectOk(await refund(sale.transactionId, { amount: '10' }));
    // 10.50 remains
    const above = expectError(
      await refund(sale.transactionId, { amount: 10.51 }),
      400,
      'REFUND_AMOUNT_EXCEEDS_BALANCE',
      20011,
    );
    expect(above.invalidProperty?.name).toBe('amount');
    expectError(
      await refundByQuery(sale.transactionId, '?amount=10.51'),
      400,
      'REFUND_AMOUNT_EXCEEDS_BALANCE',
      20011,
    );
    const rest = await refund(sale.transactionId, { amount: 10.5 });
    expectOk(rest);
    expect(rest.body.amount).toBe(10.5);
    expectError(
      await refund(sale.transactionId, { amount: 0.01 }),
      400,
      'REFUND_AMOUNT_EXCEEDS_BALANCE',
      20011,
    );
  });

  it('refunds the remainder when no amount is given', async () => {
    const sale = await create(); // 25.50
    expect((await refundByQuery(sale.transactionId, '?amount=5.25')).status).toBe(204);
    const rest = await refund(sale.transactionId);
    expectOk(rest);
    expect(rest.body).toMatchObject({ transactionId: sale.transactionId, amount: 20.25, currency: 'USD' });
    expectError(await refund(sale.transactionId), 400, 'REFUND_AMOUNT_EXCEEDS_BALANCE', 20011);
    expectError(await refundByQuery(sale.transactionId), 400, 'REFUND_AMOUNT_EXCEEDS_BALANCE', 20011);
  });

  it('refunds a full sale with the PUT form and no amount', async () => {
    const sale = await create();
    expect((await refundByQuery(sale.transactionId)).status).toBe(204);
    expectError(
      await refund(sale.transactionId, { amount: 0.01 }),
      400,
      'REFUND_AMOUNT_EXCEEDS_BALANCE',
      20011,
    );
  });

  it('refuses a refund amount with 3 decimals in USD', async () => {
    const sale = await create();
    expectError(
      await refund(sale.transactionId, { amount: '1.005' }),
      400,
      'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS',
      14021,
    );
  });

  it('voids an uncaptured authorization', async () => {
    const auth = await authOnly();
    const reply = await refund(auth.transactionId);
    expectOk(reply);
    expect(reply.body).toMatchObject({ transactionId: auth.transactionId, currency: 'USD' });
    const after = await api.get(`/transactions/${auth.transactionId}`);
    expect(after.body).toEqual({ ...auth, cardTransactionType: 'AUTH_REVERSAL' });
    expectError(await capture(auth.transactionId), 400, 'AUTHORIZATION_AMOUNT_ALREADY_REVERSED', 14002);
  });

  it('voids an uncaptured authorization with the PUT form', async () => {
    const auth = await authOnly();
    expect((await refundByQuery(auth.transactionId)).status).toBe(204);
    expect((await api.get(`/transactions/${auth.transactionId}`)).body.cardTransactionType).toBe(
      'AUTH_REVERSAL',
    );
  });

  it('refuses to refund a reversed authorization', async () => {
    const auth = await authOnly();
    expectOk(await reverse({ transactionId: auth.transactionId }));
    const reply = await refund(auth.transactionId);
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.message[0].code).toBe(14002);
    expect((await refundByQuery(auth.transactionId)).status).toBe(400);
    const { rows } = await db.query('select count(*)::int as n from refund where transaction_id = $1', [
      auth.transactionId,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('answers 404 20001 for an unknown transaction', async () => {
    expectError(await refund('999999999999'), 404, 'TRANSACTION_NOT_FOUND', 20001);
    expectError(await refundByQuery('999999999999', '?amount=1'), 404, 'TRANSACTION_NOT_FOUND', 20001);
  });
});

describe('sandbox declines', () => {
  const declines: [string, Record<string, unknown>, string][] = [
    ['a declining VISA', { creditCard: card({ cardNumber: DECLINING_VISA }) }, 'DO_NOT_HONOR'],
    [
      'a declining AMEX',
      { creditCard: card({ cardNumber: DECLINING_AMEX, securityCode: '1234' }) },
      'DO_NOT_HONOR',
    ],
    [
      'an expired card',
      {
        creditCard: card({ expirationMonth: '01', expirationYear: String(new Date().getUTCFullYear() - 1) }),
      },
      'EXPIRED_CARD',
    ],
    ['an amount ending in .51', { amount: 10.51 }, 'INSUFFICIENT_FUNDS'],
    ['security code 000', { creditCard: card({ securityCode: '000' }) }, 'CVV_ERROR'],
  ];

  for (const [what, overrides, errorName] of declines) {
    it(`declines ${what} with 400 14002 ${errorName} and writes nothing`, async () => {
      const before = await rowCounts(stack.merchant);
      const reply = await api.post('/transactions', saleBody(overrides));
      expectError(reply, 400, errorName, 14002);
      expectNoCardData(reply.text);
      expect(await rowCounts(stack.merchant)).toEqual(before);
    });
  }

  it('declines an AUTH_ONLY too', async () => {
    const reply = await api.post(
      '/transactions',
      saleBody({ cardTransactionType: 'AUTH_ONLY', creditCard: card({ cardNumber: DECLINING_VISA }) }),
    );
    expectError(reply, 400, 'DO_NOT_HONOR', 14002);
  });

  it('declines in XML with <messages><message>', async () => {
    const before = await rowCounts(stack.merchant);
    const reply = await api.post(
      '/transactions',
      xmlSale({ creditCard: card({ cardNumber: DECLINING_VISA }) }),
      { format: 'xml' },
    );
    expectError(reply, 400, 'DO_NOT_HONOR', 14002);
    expect(reply.text).toContain(`<messages xmlns="${NAMESPACE}"><message>`);
    expect(reply.text).toContain('<error-name>DO_NOT_HONOR</error-name>');
    expect(reply.text).toContain('<code>14002</code>');
    expectNoCardData(reply.text);

    const insufficient = await api.post('/transactions', xmlSale({ amount: '7.51' }), { format: 'xml' });
    expectError(insufficient, 400, 'INSUFFICIENT_FUNDS', 14002);
    expect(await rowCounts(stack.merchant)).toEqual(before);
  });
});

describe('validation', () => {
  /** A 400 10001 naming the property, without card data anywhere in the reply. */
  async function expectInvalid(body: unknown, property: string, options: CallOptions = {}) {
    const before = await rowCounts(stack.merchant);
    const reply = await api.post('/transactions', body, options);
    const error = expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
    expect(
      reply.body.message.map((m: { invalidProperty?: { name: string } }) => m.invalidProperty?.name),
    ).toContain(property);
    expectNoCardData(reply.text);
    expect(await rowCounts(stack.merchant)).toEqual(before);
    return error;
  }

  it('refuses a card number that fails the Luhn check, without echoing it', async () => {
    const error = await expectInvalid(
      saleBody({ creditCard: card({ cardNumber: NOT_LUHN }) }),
      'creditCard.cardNumber',
    );
    expect(error.invalidProperty?.messageValue).toBeUndefined();
  });

  it('refuses a bad expiration month', async () => {
    await expectInvalid(
      saleBody({ creditCard: card({ expirationMonth: '13' }) }),
      'creditCard.expirationMonth',
    );
  });

  it('refuses a security code of the wrong length (3 digits for AMEX, 5 for VISA), without echoing it', async () => {
    const amex = await expectInvalid(
      saleBody({ creditCard: card({ cardNumber: AMEX.cardNumber, securityCode: '837' }) }),
      'creditCard.securityCode',
    );
    expect(amex.invalidProperty?.messageValue).toBeUndefined();
    await expectInvalid(saleBody({ creditCard: card({ securityCode: '12345' }) }), 'creditCard.securityCode');
  });

  it('refuses a missing amount', async () => {
    await expectInvalid(saleBody({ amount: undefined }), 'amount');
  });

  it('refuses a USD amount with 3 decimals with 14021', async () => {
    const reply = await api.post('/transactions', saleBody({ amount: '25.505' }));
    const error = expectError(reply, 400, 'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS', 14021);
    expect(error.invalidProperty?.name).toBe('amount');
    const jpy = await api.post('/transactions', saleBody({ amount: 10.5, currency: 'JPY' }));
    expectError(jpy, 400, 'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS', 14021);
  });

  it('refuses a negative, zero or non-numeric amount', async () => {
    await expectInvalid(saleBody({ amount: -5 }), 'amount');
    await expectInvalid(saleBody({ amount: 0 }), 'amount');
    await expectInvalid(saleBody({ amount: 'ten' }), 'amount');
  });

  it('refuses an unsupported currency', async () => {
    const error = await expectInvalid(saleBody({ currency: 'XYZ' }), 'currency');
    expect(error.invalidProperty?.messageValue).toBe('XYZ');
  });

  it('refuses wrong JSON types: amount as an object, cardNumber as a number', async () => {
    await expectInvalid(saleBody({ amount: { value: 25.5 } }), 'amount');
    await expectInvalid(
      saleBody({ creditCard: { ...card(), cardNumber: Number(VISA.cardNumber) } }),
      'creditCard.cardNumber',
    );
  });

  it('refuses creditCard as a string without echoing the card number it holds', async () => {
    await expectInvalid(saleBody({ creditCard: VISA.cardNumber }), 'creditCard');
    const reply = await api.post('/transactions', xmlSale({ creditCard: VISA.cardNumber }), {
      format: 'xml',
    });
    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
    expectNoCardData(reply.text);
  });

  it('refuses a sale with no payment source', async () => {
    await expectInvalid(saleBody({ creditCard: undefined }), 'creditCard');
  });

  it('refuses malformed JSON', async () => {
    const before = await rowCounts(stack.merchant);
    const raw = JSON.stringify(saleBody()).slice(0, -2);
    const reply = await api.post('/transactions', undefined, {
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
    expectNoCardData(reply.text);
    expect(await rowCounts(stack.merchant)).toEqual(before);
  });

  it('refuses malformed XML', async () => {
    const raw = xmlSale().replace('</credit-card>', '');
    const reply = await api.post('/transactions', undefined, { format: 'xml', raw });
    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
    expect(reply.text).toContain('<messages');
    expectNoCardData(reply.text);
  });

  it('refuses XML with the wrong root element', async () => {
    const raw = xmlDocument('transaction', saleBody({ amount: '25.50' }));
    const reply = await api.post('/transactions', undefined, { format: 'xml', raw });
    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
    expectNoCardData(reply.text);
  });

  it('refuses invalid card data in XML, without echoing it', async () => {
    const reply = await api.post(
      '/transactions',
      xmlSale({ creditCard: card({ cardNumber: NOT_LUHN, securityCode: '12345' }) }),
      { format: 'xml' },
    );
    expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
    expect(reply.text).toContain('<invalid-property>');
    expectNoCardData(reply.text);
  });
});

describe('returning shopper', () => {
  it("charges the vaulted shopper's stored card with vaultedShopperId alone", async () => {
    const first = await create({ creditCard: card(AMEX) });
    const reply = await api.post('/transactions', {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 12.34,
      currency: 'USD',
      vaultedShopperId: first.vaultedShopperId,
    });
    expectOk(reply);
    expect(reply.body).toMatchObject({
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 12.34,
      vaultedShopperId: first.vaultedShopperId,
      creditCard: { cardLastFourDigits: '0126', cardType: 'AMEX' },
      processingInfo: { processingStatus: 'success' },
    });
    expect(reply.body.transactionId).not.toBe(first.transactionId);
    expectNoCardData(reply.text);
  });

  it('charges a returning shopper in XML', async () => {
    const first = await create();
    const reply = await api.post(
      '/transactions',
      xmlDocument('card-transaction', {
        cardTransactionType: 'AUTH_ONLY',
        amount: '3.00',
        currency: 'USD',
        vaultedShopperId: first.vaultedShopperId,
      }),
      asCardTransaction,
    );
    expectOk(reply);
    expect(reply.text).toContain(`<vaulted-shopper-id>${first.vaultedShopperId}</vaulted-shopper-id>`);
    expect(reply.text).toContain('<card-last-four-digits>9299</card-last-four-digits>');
    expect(reply.text).toContain('<amount>3.00</amount>');
  });

  it('answers 404 20002 for an unknown vaultedShopperId', async () => {
    const reply = await api.post('/transactions', {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 5,
      currency: 'USD',
      vaultedShopperId: 987654321,
    });
    expectError(reply, 404, 'SHOPPER_NOT_FOUND', 20002);
  });
});

describe('merchantTransactionId', () => {
  it('is unique per merchant: a reuse is 400 10001 and writes nothing', async () => {
    const id = merchantTransactionId();
    await create({ merchantTransactionId: id });
    const before = await rowCounts(stack.merchant);
    const reply = await api.post('/transactions', saleBody({ merchantTransactionId: id }));
    const error = expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
    expect(error.invalidProperty?.name).toBe('merchantTransactionId');
    expect(await rowCounts(stack.merchant)).toEqual(before);
    // Also when the first use was an AUTH_ONLY and the reuse an AUTH_ONLY.
    const authId = merchantTransactionId();
    await authOnly({ merchantTransactionId: authId });
    expectError(
      await api.post(
        '/transactions',
        saleBody({ cardTransactionType: 'AUTH_ONLY', merchantTransactionId: authId }),
      ),
      400,
      'VALIDATION_GENERAL_FAILURE',
      10001,
    );
  });

  it('may be used again by another merchant', async () => {
    const id = merchantTransactionId();
    await create({ merchantTransactionId: id });
    const other = await stack.newMerchant();
    const theirs = await create({ merchantTransactionId: id }, other);
    expect(theirs.merchantTransactionId).toBe(id);
  });

  it('is at most 50 characters', async () => {
    const error = expectError(
      await api.post('/transactions', saleBody({ merchantTransactionId: 'x'.repeat(51) })),
      400,
      'VALIDATION_GENERAL_FAILURE',
      10001,
    );
    expect(error.invalidProperty?.name).toBe('merchantTransactionId');
  });
});

// ---------------------------------------------------------------------------------------------------------
// The original's transaction details: 3-D Secure, metadata, Level 3 data, fraud info; lookups and refunds by
// merchantTransactionId; the published Node SDK's request shapes.
// ---------------------------------------------------------------------------------------------------------

const MASTERCARD = { cardNumber: '5425233430109903', securityCode: '123' };
const CAVV = 'AAABBWFlmQAAAABjRWWZEEFgFz8=';
const DS_TRANSACTION_ID = 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b';
const META = {
  metaData: [{ metaKey: 'orderId', metaValue: 'A-17', metaDescription: 'Shop order', isVisible: true }],
};
const LEVEL3 = {
  customerReferenceNumber: 'PO-1001',
  salesTaxAmount: 1.5,
  freightAmount: 2,
  destinationZipCode: '02139',
  destinationCountryCode: 'US',
  level3DataItems: [
    {
      lineItemTotal: 20,
      description: 'Widget',
      productCode: 'W-1',
      itemQuantity: 2,
      unitCost: 10,
      unitOfMeasure: 'EA',
      discountIndicator: 'N',
      grossNetIndicator: 'Y',
    },
    { lineItemTotal: 5.5, description: 'Cable', productCode: 'C-9', itemQuantity: 1, unitCost: 5.5 },
  ],
};
const FRAUD = {
  fraudSessionId: 'a2b0c1d4e5f6',
  shopperIpAddress: '62.219.121.253',
  company: 'Analytical Engines',
  shippingContactInfo: {
    firstName: 'Ada',
    lastName: 'Lovelace',
    address1: '1 Main St',
    city: 'London',
    zip: 'N1',
    country: 'GB',
  },
  enterpriseSiteId: 'site-1',
  enterpriseUdfs: { udf: [{ udfName: 'tier', udfValue: 'gold' }] },
};
const cardTransactionXml: CallOptions = {
  format: 'xml',
  accept: 'application/xml',
  shape: {
    root: 'card-transaction',
    repeated: ['metaData', 'level3DataItems', 'udf'],
    elementNames: { level3Data: 'level-3-data', level3DataItems: 'level-3-data-item' },
  },
};

describe('3-D Secure', () => {
  it('passes an external MPI result to the acquirer and answers its authenticationResult; no cryptogram kept', async () => {
    const threeDSecure = {
      eci: '05',
      cavv: CAVV,
      xid: 'MDAwMDAwMDAwMDAwMDAwMDAwMDE=',
      dsTransactionId: DS_TRANSACTION_ID,
      threeDSecureVersion: '2.2.0',
    };
    const sale = await create({ threeDSecure });
    expect(sale.threeDSecure).toEqual({ authenticationResult: 'AUTHENTICATION_SUCCEEDED' });
    const read = expectStatus(await api.get(`/transactions/${sale.transactionId}`), 200);
    expect(read.body.threeDSecure).toEqual({ authenticationResult: 'AUTHENTICATION_SUCCEEDED' });
    const { rows } = await db.query('select three_d_secure from card_transaction where id = $1', [
      sale.transactionId,
    ]);
    expect(rows[0].three_d_secure).toEqual({
      authenticationResult: 'AUTHENTICATION_SUCCEEDED',
      eci: '05',
      dsTransactionId: DS_TRANSACTION_ID,
      threeDSecureVersion: '2.2.0',
    });
    expect(JSON.stringify(rows[0]) + read.text).not.toContain(CAVV);
    // Without 3-D Secure data there is no result to show.
    expect(await create()).not.toHaveProperty('threeDSecure');
  });

  const results: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
    ['ECI 06 (attempted)', { eci: '06', cavv: CAVV }, {}, 'AUTHENTICATION_BYPASSED'],
    ['ECI 07 (not authenticated)', { eci: '07', cavv: CAVV }, {}, 'AUTHENTICATION_FAILED'],
    [
      'MasterCard ECI 02',
      { eci: '02', cavv: CAVV },
      { creditCard: card(MASTERCARD) },
      'AUTHENTICATION_SUCCEEDED',
    ],
    ['a VISA with a MasterCard ECI', { eci: '02', cavv: CAVV }, {}, 'AUTHENTICATION_UNAVAILABLE'],
    ['a reference id', { threeDSecureReferenceId: '1021' }, {}, 'AUTHENTICATION_SUCCEEDED'],
    ['a reference id ending in 9', { threeDSecureReferenceId: 1029 }, {}, 'AUTHENTICATION_FAILED'],
    ['a reference id ending in 8', { threeDSecureReferenceId: '1028' }, {}, 'AUTHENTICATION_UNAVAILABLE'],
    ["the Node SDK's result token", { threeDSecureResultToken: 'token-abc' }, {}, 'AUTHENTICATION_SUCCEEDED'],
  ];
  it.each(results)('the sandbox answers %s', async (_what, threeDSecure, overrides, result) => {
    expect((await create({ threeDSecure, ...overrides })).threeDSecure).toEqual({
      authenticationResult: result,
    });
  });

  it('in XML: <three-d-secure> in, <authentication-result> out', async () => {
    const reply = expectStatus(
      await api.post(
        '/transactions',
        xmlSale({ threeDSecure: { threeDSecureReferenceId: '4009', threeDSecureVersion: '2.1.0' } }),
        cardTransactionXml,
      ),
      200,
    );
    expect(reply.text).toContain(
      '<three-d-secure><authentication-result>AUTHENTICATION_FAILED</authentication-result></three-d-secure>',
    );
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['an ECI outside the reference values', { eci: '03', cavv: CAVV }, 'threeDSecure.eci'],
    ['an ECI without its CAVV', { eci: '05' }, 'threeDSecure.cavv'],
    ['a CAVV that is not base64', { eci: '05', cavv: 'not base64!' }, 'threeDSecure.cavv'],
    [
      'a dsTransactionId that is not a UUID',
      { threeDSecureReferenceId: '1', dsTransactionId: '123' },
      'threeDSecure.dsTransactionId',
    ],
    [
      'an unknown 3-D Secure version',
      { threeDSecureReferenceId: '1', threeDSecureVersion: '3.0' },
      'threeDSecure.threeDSecureVersion',
    ],
    ['no authentication at all', { threeDSecureVersion: '2.2.0' }, 'threeDSecure'],
  ];
  it.each(invalid)(
    'refuses %s with 400 naming the property, charging nothing',
    async (_what, threeDSecure, property) => {
      const before = await rowCounts(stack.merchant);
      const error = expectError(
        await api.post('/transactions', saleBody({ threeDSecure })),
        400,
        'VALIDATION_GENERAL_FAILURE',
        10001,
      );
      expect(error.invalidProperty?.name).toBe(property);
      expect(await rowCounts(stack.merchant)).toEqual(before);
    },
  );
});

describe('transactionMetaData, level3Data and transactionFraudInfo', () => {
  it('are kept with the transaction and returned by the sale and by GET, in JSON', async () => {
    const sale = await create({ transactionMetaData: META, level3Data: LEVEL3, transactionFraudInfo: FRAUD });
    expect(sale).toMatchObject({
      transactionMetaData: META,
      level3Data: LEVEL3,
      transactionFraudInfo: FRAUD,
    });
    const read = expectStatus(await api.get(`/transactions/${sale.transactionId}`), 200);
    expect(read.body).toEqual(sale);
  });

  it("accept the Node SDK's bare enterpriseUdfs array and answer the reference's object", async () => {
    const sale = await create({
      transactionFraudInfo: { fraudSessionId: 's1', enterpriseUdfs: [{ udfName: 'a', udfValue: 'b' }] },
    });
    expect(sale.transactionFraudInfo).toEqual({
      fraudSessionId: 's1',
      enterpriseUdfs: { udf: [{ udfName: 'a', udfValue: 'b' }] },
    });
  });

  it('in XML, with the original element names (<level-3-data>, repeated <level-3-data-item> and <meta-data>)', async () => {
    const xml = `<card-transaction xmlns="${NAMESPACE}"><card-transaction-type>AUTH_ONLY</card-transaction-type>
      <amount>25.50</amount><currency>USD</currency>
      <credit-card><card-number>${VISA.cardNumber}</card-number><security-code>${VISA.securityCode}</security-code>
        <expiration-month>02</expiration-month><expiration-year>2031</expiration-year></credit-card>
      <transaction-meta-data><meta-data><meta-key>orderId</meta-key><meta-value>A-17</meta-value>
        <meta-description>Shop order</meta-description><is-visible>true</is-visible></meta-data></transaction-meta-data>
      <level-3-data><customer-reference-number>PO-1001</customer-reference-number><sales-tax-amount>1.50</sales-tax-amount>
        <level-3-data-item><line-item-total>20.00</line-item-total><description>Widget</description></level-3-data-item>
        <level-3-data-item><line-item-total>5.50</line-item-total><description>Cable</description></level-3-data-item>
      </level-3-data>
      <transaction-fraud-info><fraud-session-id>a2b0c1d4e5f6</fraud-session-id>
        <enterprise-udfs><udf><udf-name>tier</udf-name><udf-value>gold</udf-value></udf></enterprise-udfs></transaction-fraud-info>
    </card-transaction>`;
    const reply = expectStatus(await api.post('/transactions', xml, cardTransactionXml), 200);
    expect(reply.text).toContain(
      '<transaction-meta-data><meta-data><meta-key>orderId</meta-key><meta-value>A-17</meta-value><meta-description>Shop order</meta-description><is-visible>true</is-visible></meta-data></transaction-meta-data>',
    );
    expect(reply.text).toContain(
      '<level-3-data><customer-reference-number>PO-1001</customer-reference-number><sales-tax-amount>1.5</sales-tax-amount><level-3-data-item><line-item-total>20</line-item-total><description>Widget</description></level-3-data-item><level-3-data-item>',
    );
    expect(reply.text).toContain(
      '<enterprise-udfs><udf><udf-name>tier</udf-name><udf-value>gold</udf-value></udf></enterprise-udfs>',
    );
    const json = expectStatus(await api.get(`/transactions/${reply.body.transactionId}`), 200).body;
    expect(json.level3Data.level3DataItems).toEqual([
      { lineItemTotal: 20, description: 'Widget' },
      { lineItemTotal: 5.5, description: 'Cable' },
    ]);
    expect(json.transactionMetaData).toEqual(META);
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    [
      'a metaKey over 50 characters',
      { transactionMetaData: { metaData: [{ ...META.metaData[0], metaKey: 'k'.repeat(51) }] } },
      'transactionMetaData.metaData.0.metaKey',
    ],
    [
      'a metadata entry without value',
      { transactionMetaData: { metaData: [{ metaKey: 'a', metaDescription: 'b' }] } },
      'transactionMetaData.metaData.0.metaValue',
    ],
    [
      'a discountIndicator other than Y or N',
      { level3Data: { level3DataItems: [{ discountIndicator: 'X' }] } },
      'level3Data.level3DataItems.0.discountIndicator',
    ],
    [
      'Level 3 data without items',
      { level3Data: { customerReferenceNumber: 'PO' } },
      'level3Data.level3DataItems',
    ],
    [
      'a negative freight amount',
      { level3Data: { freightAmount: -1, level3DataItems: [{}] } },
      'level3Data.freightAmount',
    ],
    [
      'a shopper IP that is no address',
      { transactionFraudInfo: { shopperIpAddress: 'localhost' } },
      'transactionFraudInfo.shopperIpAddress',
    ],
  ];
  it.each(invalid)('refuse %s with 400 naming the property', async (_what, overrides, property) => {
    const error = expectError(
      await api.post('/transactions', saleBody(overrides)),
      400,
      'VALIDATION_GENERAL_FAILURE',
      10001,
    );
    expect(error.invalidProperty?.name).toBe(property);
  });
});

describe('by merchantTransactionId', () => {
  it('retrieves as the original: GET /transactions/{merchantTransactionId},{merchantId}, JSON and XML', async () => {
    const id = merchantTransactionId();
    const sale = await create({ merchantTransactionId: id });
    const json = expectStatus(await api.get(`/transactions/${id},${stack.merchant.id}`), 200);
    expect(json.body).toEqual(sale);
    const xml = expectStatus(
      await api.get(`/transactions/${id},${stack.merchant.id}`, {
        accept: 'application/xml',
        shape: asCardTransaction.shape,
      }),
      200,
    );
    // The schema's order: merchant-transaction-id before transaction-id.
    expect(xml.text).toContain(
      `<merchant-transaction-id>${id}</merchant-transaction-id><transaction-id>${sale.transactionId}</transaction-id>`,
    );

    // Another merchant's transaction, by either merchant id, looks exactly like an unknown one.
    const other = await stack.newMerchant();
    const foreign = await api.get(`/transactions/${id},${other.id}`, as(other));
    expectError(foreign, 404, 'TRANSACTION_NOT_FOUND', 20001);
    const claimed = await api.get(`/transactions/${id},${stack.merchant.id}`, as(other));
    expect(claimed.text).toBe(foreign.text);
    expectError(await api.get(`/transactions/${id},${other.id}`), 404, 'TRANSACTION_NOT_FOUND', 20001);
    expectError(
      await api.get(`/transactions/unknown-${id},${stack.merchant.id}`),
      404,
      'TRANSACTION_NOT_FOUND',
      20001,
    );
  });

  it('refunds with POST /transactions/refund/merchant/{id}: date, taxAmount, cancelSubscriptions, metadata', async () => {
    const id = merchantTransactionId();
    const sale = await create({ merchantTransactionId: id });
    const clock = new Date(expectStatus(await api.get('/sandbox/clock'), 200).body.now);
    const date = `${String(clock.getUTCMonth() + 1).padStart(2, '0')}/${String(clock.getUTCDate()).padStart(2, '0')}/${clock.getUTCFullYear()}`;
    const reply = expectStatus(
      await api.post(`/transactions/refund/merchant/${id}`, {
        amount: 10,
        taxAmount: 1.25,
        reason: 'late',
        cancelSubscriptions: false,
        transactionMetaData: META,
      }),
      200,
    );
    expect(reply.body).toEqual({
      refundTransactionId: expect.stringMatching(/^\d+$/),
      transactionId: sale.transactionId,
      amount: 10,
      taxAmount: 1.25,
      currency: 'USD',
      date,
      reason: 'late',
      cancelSubscriptions: false,
      transactionMetaData: META,
      refundStatus: 'SUCCESS',
    });
    const xml = expectStatus(
      await api.post(
        `/transactions/refund/merchant/${id}`,
        xmlDocument('refund', { amount: '5.00', cancelSubscriptions: 'true' }),
        asRefund,
      ),
      200,
    );
    expect(xml.body).toMatchObject({
      amount: '5.00',
      date,
      cancelSubscriptions: 'true',
      refundStatus: 'SUCCESS',
    });
    const { rows } = await db.query(
      `select amount_minor::int as a, tax_amount_minor::int as t, cancel_subscriptions as c, transaction_meta_data as m, reason
       from refund where transaction_id = $1 order by id`,
      [sale.transactionId],
    );
    expect(rows).toEqual([
      { a: 1000, t: 125, c: false, m: META, reason: 'late' },
      { a: 500, t: null, c: true, m: null, reason: null },
    ]);
    expectError(
      await api.post(`/transactions/refund/merchant/unknown-${id}`, {}),
      404,
      'TRANSACTION_NOT_FOUND',
      20001,
    );
    const other = await stack.newMerchant();
    expectError(
      await api.post(`/transactions/refund/merchant/${id}`, {}, as(other)),
      404,
      'TRANSACTION_NOT_FOUND',
      20001,
    );
  });

  it('refuses a taxAmount above the amount, or without one', async () => {
    const sale = await create();
    const above = expectError(
      await refund(sale.transactionId, { amount: 1, taxAmount: 2 }),
      400,
      'VALIDATION_GENERAL_FAILURE',
      10001,
    );
    expect(above.invalidProperty?.name).toBe('taxAmount');
    const alone = expectError(
      await refund(sale.transactionId, { taxAmount: 2 }),
      400,
      'VALIDATION_GENERAL_FAILURE',
      10001,
    );
    expect(alone.invalidProperty?.name).toBe('taxAmount');
  });
});

describe('the published Node SDK (bluesnap 0.3.4) request shapes', () => {
  it('authCapture: fields Paywire does not know are accepted and ignored, JSON and XML', async () => {
    const body = saleBody({
      cardHoldersInfo: { firstName: 'Ada' },
      storeCard: true,
      walletId: 7,
      descriptorPhoneNumber: '555-0100',
      creditCard: { ...card(), encryptedSecurityCode: 'x' },
    });
    const reply = expectStatus(
      await api.post('/transactions', body, { headers: { 'bluesnap-version': '3.0' } }),
      200,
    );
    expect(reply.body).not.toHaveProperty('storeCard');
    const xml = expectStatus(
      await api.post(
        '/transactions',
        xmlSale({ storeCard: 'true', unknownElement: { nested: '1' } }),
        cardTransactionXml,
      ),
      200,
    );
    expect(xml.text).not.toContain('store-card');
  });

  it("refund(id, {cancelsubscriptions}): PUT with the SDK's query answers 204 and keeps the flag", async () => {
    const sale = await create();
    const reply = await api.put(
      `/transactions/${sale.transactionId}/refund?amount=5&reason=dup&cancelsubscriptions=true`,
      undefined,
      {
        headers: { 'content-type': 'application/json' },
      },
    );
    expect(reply.status, reply.text).toBe(204);
    const bare = await api.put(`/transactions/${sale.transactionId}/refund?`, undefined, {
      headers: { 'content-type': 'application/json' },
    });
    expect(bare.status, bare.text).toBe(204);
    const { rows } = await db.query(
      'select cancel_subscriptions as c from refund where transaction_id = $1 order by id',
      [sale.transactionId],
    );
    expect(rows).toEqual([{ c: true }, { c: null }]);
  });
});

// Last: everything above has run, so every request of this file has been logged.
describe('logs', () => {
  it('captures the facade request lines in stack.logs', () => {
    expect(stack.logs.some((line) => line.includes('"message":"request"'))).toBe(true);
  });

  it('never contain a card number or security code', () => {
    const output = [...stack.logs, ...stdout.printed].join('\n');
    expect(output).toContain('/services/2/transactions'); // the check below reads real log lines
    for (const number of CARD_NUMBERS) expect(output).not.toContain(number);
    expect(output).not.toMatch(/securityCode|security-code|cardNumber|card-number/);
    for (const code of SECURITY_CODES) expect(output).not.toContain(`"${code}"`);
  });
});
