import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { PaywireClient } from '@paywire/client';
import { createSandboxProcessor, type Processor } from '@paywire/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorOf, startLiveStack } from '../support/adyen.ts';
import { as, type CallOptions, client, type Reply, saleBody, xmlDocument } from '../support/http.ts';
import { hookConfig } from '../support/ipn-receiver.ts';
import {
  operatorCliEnv,
  paymentRowCounts,
  type Stack,
  startStack,
  type TestMerchant,
} from '../support/stack.ts';
import { captureStdout } from '../support/stdout.ts';
import {
  type ApplePayOptions,
  applePayPayment,
  encodeMobile,
  encodeWeb,
  type GooglePayOptions,
  googlePayMobileData,
  googlePayWebPaymentData,
  newAppleChain,
  strangerKey,
  testMerchantWalletKeys,
} from '../support/wallet-tokens.ts';

// ---------------------------------------------------------------------------------------------------------
// Wallet payments (see docs/conformance.md, Wallet tokens): Google Pay and
// Apple Pay tokens in the web and mobile forms, built the way the wallets build them, over real HTTP in
// JSON and XML, against real PostgreSQL, in a sandbox stack and a live-mode one.
// ---------------------------------------------------------------------------------------------------------

const NAMESPACE = 'http://ws.plimus.com';
const asCardTransaction: CallOptions = {
  format: 'xml',
  shape: { root: 'card-transaction', upperCaseValues: ['processingStatus'] },
};

/** The sandbox processor, with every call recorded: what a processor behind Paywire would be sent. */
const sandbox = createSandboxProcessor();
const authorizations: Array<Parameters<Processor['authorize']>[0]> = [];
const captures: Array<[string, number]> = [];
const recordingProcessor: Processor = {
  ...sandbox,
  authorize: (request) => {
    authorizations.push(request);
    return sandbox.authorize(request);
  },
  capture: (request) => {
    captures.push([request.processorReference, request.amountMinor]);
    return sandbox.capture(request);
  },
};

let stack: Stack;
let api: ReturnType<typeof client>;
let db: pg.Pool;
let hook: Server;
let hookUrl: string;
let stdout: ReturnType<typeof captureStdout>;
let operator: PaywireClient;

/** A merchant whose wallet keys are the test run's (wallet-tokens.ts), as an operator configures them. */
async function walletMerchant(): Promise<TestMerchant> {
  const merchant = await stack.newMerchant();
  await operator.wallets.configureKeys.mutate(testMerchantWalletKeys(merchant.id));
  return merchant;
}

beforeAll(async () => {
  stdout = captureStdout();
  stack = await startStack({ sandbox: recordingProcessor });
  api = client(stack);
  db = stack.db;
  operator = await operatorOf(stack);
  await operator.wallets.configureKeys.mutate(testMerchantWalletKeys(stack.merchant.id));
  // An IPN receiver that acknowledges everything: the events are read from their delivery rows.
  hook = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/ipn`;
});

afterAll(async () => {
  stdout?.restore();
  await stack?.close();
  await new Promise((resolve) => hook?.close(resolve));
});

// --- tokens, and every secret part of them this file sends --------------------------------------------

/** Random parts of every token sent: none may come back, reach a log, a column or an IPN. */
const secrets = new Set<string>();
const remember = (value: string) => {
  // A middle slice: long enough to be unique, away from constant prefixes (DER headers, JSON keys).
  if (value.length >= 48) secrets.add(value.slice(16, 48));
};

function rememberGoogleToken(token: string, pan?: string) {
  if (!token.startsWith('{')) return;
  if (pan) cardNumbers.add(pan);
  const parsed = JSON.parse(token);
  remember(parsed.signature);
  const message = JSON.parse(parsed.signedMessage);
  remember(message.encryptedMessage);
  remember(message.tag);
}

function google(form: 'web' | 'mobile', options: GooglePayOptions = {}) {
  const data = form === 'web' ? googlePayWebPaymentData(options) : googlePayMobileData(options);
  rememberGoogleToken(
    data.paymentMethodData.tokenizationData.token,
    options.tokenOptions?.pan ?? `411111111111${options.cardDetails ?? '1111'}`,
  );
  const encoded = form === 'web' ? encodeWeb(data) : encodeMobile(data);
  remember(encoded);
  return encoded;
}

function apple(form: 'web' | 'mobile', options: ApplePayOptions = {}) {
  const payment = applePayPayment(options);
  const { paymentData } = payment.token;
  cardNumbers.add(options.data?.dpan ?? '4895370012003478');
  remember(paymentData.data);
  remember(paymentData.signature.slice(-200));
  remember(paymentData.header.ephemeralPublicKey.slice(-64));
  remember(payment.token.transactionIdentifier);
  const encoded = form === 'web' ? encodeWeb(payment) : encodeMobile(payment);
  remember(encoded);
  return encoded;
}

/** Card and device account numbers inside production tokens: Paywire decrypts them, and keeps none. */
const cardNumbers = new Set<string>();

function expectNoTokenData(text: string): void {
  for (const number of cardNumbers) expect(text.includes(number), `a decrypted number leaked`).toBe(false);
  for (const secret of secrets) expect(text.includes(secret), `a token part leaked: ${secret}`).toBe(false);
  // Error bodies name wallet.encodedPaymentToken; nothing carries it as a key or element with a value.
  expect(text).not.toMatch(
    /"encodedPaymentToken"\s*:|<encoded-payment-token>|"paymentData"|examplePaymentMethodToken/,
  );
}

// --- requests ------------------------------------------------------------------------------------------

type WalletType = 'GOOGLE_PAY' | 'APPLE_PAY';

function walletBody(
  walletType: WalletType,
  encodedPaymentToken: string,
  overrides: Record<string, unknown> = {},
) {
  return {
    cardTransactionType: 'AUTH_CAPTURE',
    amount: 42.1,
    currency: 'USD',
    softDescriptor: 'PAYWIRE WALLET',
    wallet: { walletType, encodedPaymentToken },
    ...overrides,
  };
}

function walletXml(
  walletType: WalletType,
  encodedPaymentToken: string,
  overrides: Record<string, unknown> = {},
) {
  return xmlDocument(
    'card-transaction',
    walletBody(walletType, encodedPaymentToken, { amount: '42.10', ...overrides }),
  );
}

function expectOk(reply: Reply): void {
  expect(reply.status, reply.text).toBe(200);
}

async function pay(
  walletType: WalletType,
  token: string,
  overrides: Record<string, unknown> = {},
  merchant = stack.merchant,
) {
  const reply = await api.post('/transactions', walletBody(walletType, token, overrides), as(merchant));
  expectOk(reply);
  expectNoTokenData(reply.text);
  return reply.body;
}

/** The interface's error body; returns its first message. */
function expectError(reply: Reply, status: number, errorName: string, code: number) {
  expect(reply.status, reply.text).toBe(status);
  const [first] = reply.body?.message ?? [];
  expect(first?.errorName, reply.text).toBe(errorName);
  expect(Number(first?.code), reply.text).toBe(code);
  expectNoTokenData(reply.text);
  return first;
}

const rowCounts = (merchant: TestMerchant) => paymentRowCounts(db, merchant);

async function configureIpn(merchant: TestMerchant) {
  const body = hookConfig(hookUrl, [
    'sendAuthOnly',
    'sendCharge',
    'sendDecline',
    'sendRefund',
    'sendCancellation',
  ]);
  expectOk(await api.post('/notification-config', body, as(merchant)));
}

async function ipnBodies(merchant: TestMerchant, event: string) {
  const { rows } = await db.query<{ body: string }>(
    'select body from ipn_delivery where merchant_id = $1 and event = $2 order by id',
    [merchant.id, event],
  );
  return rows.map((row) => new URLSearchParams(row.body));
}

// ---------------------------------------------------------------------------------------------------------

describe('Google Pay', () => {
  it('charges a web token in JSON: new shopper, card fields, wallet section in the original shape', async () => {
    const merchantTransactionId = `gp-${randomUUID()}`;
    const body = await pay(
      'GOOGLE_PAY',
      google('web', { environment: 'PRODUCTION', cardNetwork: 'MASTERCARD', cardDetails: '4444' }),
      {
        merchantTransactionId,
      },
    );
    expect(body).toEqual({
      cardTransactionType: 'AUTH_CAPTURE',
      transactionId: expect.stringMatching(/^\d+$/),
      recurringTransaction: 'ECOMMERCE',
      merchantTransactionId,
      softDescriptor: 'PAYWIRE WALLET',
      amount: 42.1,
      currency: 'USD',
      cardHolderInfo: {
        firstName: 'Card Holder',
        lastName: 'Name',
        zip: '94043',
        email: 'card.holder@example.com',
        country: 'us',
      },
      vaultedShopperId: expect.any(Number),
      creditCard: {
        cardLastFourDigits: '4444',
        cardType: 'MASTERCARD',
        cardSubType: 'CREDIT',
        cardCategory: 'CLASSIC',
      },
      wallet: {
        walletType: 'GOOGLE_PAY',
        billingContactInfo: {
          firstName: 'Card Holder',
          lastName: 'Name',
          address1: '1600 Amphitheatre Parkway',
          city: 'Mountain View',
          state: 'CA',
          zip: '94043',
          country: 'us',
        },
        tokenizedCard: { cardLastFourDigits: '4444', cardType: 'MASTERCARD', cardSubType: 'CREDIT' },
      },
      processingInfo: expect.objectContaining({ processingStatus: 'success', cvvResponseCode: 'NC' }),
    });

    // A new shopper, made from the wallet's billing contact; the single-use token is not a card to charge again.
    const shopper = await api.get(`/vaulted-shoppers/${body.vaultedShopperId}`);
    expectOk(shopper);
    expect(shopper.body).toMatchObject({
      vaultedShopperId: body.vaultedShopperId,
      firstName: 'Card Holder',
      lastName: 'Name',
      email: 'card.holder@example.com',
      address: '1600 Amphitheatre Parkway',
      city: 'Mountain View',
      zip: '94043',
      country: 'us',
      paymentSources: { creditCardInfo: [] },
      lastPaymentInfo: {
        paymentMethod: 'CC',
        creditCard: { cardLastFourDigits: '4444', cardType: 'MASTERCARD' },
      },
    });
    expectNoTokenData(shopper.text);
  });

  it('authorizes a mobile token in XML (URL-safe base-64, card class), then captures it', async () => {
    const token = google('mobile', {
      environment: 'PRODUCTION',
      cardNetwork: 'VISA',
      cardDetails: '1881',
      cardClass: 'DEBIT',
    });
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const reply = await api.post(
      '/transactions',
      walletXml('GOOGLE_PAY', token, { cardTransactionType: 'AUTH_ONLY' }),
      asCardTransaction,
    );
    expectOk(reply);
    expect(reply.headers.get('content-type')).toMatch(/application\/xml/);
    expect(reply.text).toContain(`<card-transaction xmlns="${NAMESPACE}">`);
    expect(reply.text).toContain('<card-transaction-type>AUTH_ONLY</card-transaction-type>');
    expect(reply.text).toContain('<processing-status>SUCCESS</processing-status>');
    expect(reply.text).toMatch(
      /<wallet><wallet-type>GOOGLE_PAY<\/wallet-type><billing-contact-info>.*<\/billing-contact-info><tokenized-card><card-last-four-digits>1881<\/card-last-four-digits><card-type>VISA<\/card-type><card-sub-type>DEBIT<\/card-sub-type><\/tokenized-card><\/wallet>/,
    );
    expect(reply.body.creditCard).toEqual({
      cardLastFourDigits: '1881',
      cardType: 'VISA',
      cardSubType: 'DEBIT',
      cardCategory: 'CLASSIC',
    });
    expectNoTokenData(reply.text);

    const captured = await api.put('/transactions', {
      cardTransactionType: 'CAPTURE',
      transactionId: reply.body.transactionId,
    });
    expectOk(captured);
    expect(captured.body).toMatchObject({
      cardTransactionType: 'CAPTURE',
      transactionId: reply.body.transactionId,
      amount: 42.1,
      wallet: { walletType: 'GOOGLE_PAY', tokenizedCard: { cardLastFourDigits: '1881' } },
    });
  });

  it('approves a TEST-environment token in the sandbox (web and mobile), charging nothing real', async () => {
    for (const form of ['web', 'mobile'] as const) {
      const body = await pay(
        'GOOGLE_PAY',
        google(form, { environment: 'TEST', cardNetwork: 'AMEX', cardDetails: '0005' }),
      );
      expect(body.processingInfo.processingStatus).toBe('success');
      expect(body.creditCard).toMatchObject({
        cardLastFourDigits: '0005',
        cardType: 'AMEX',
        cardCategory: 'PLATINUM',
      });
    }
  });
});

describe('Apple Pay', () => {
  it('charges a web token (ApplePayPayment) in JSON, with the Wallet pass giving the DPAN', async () => {
    const token = apple('web', {
      environment: 'PRODUCTION',
      network: 'MasterCard',
      displayName: 'MasterCard 1471',
      type: 'credit',
      paymentPass: { primaryAccountNumberSuffix: '1471', deviceAccountNumberSuffix: '0010' },
      data: { dpan: '5204240000000010', expiration: '290831' },
    });
    const body = await pay('APPLE_PAY', token);
    expect(body).toMatchObject({
      cardHolderInfo: {
        firstName: 'Grace',
        lastName: 'Hopper',
        zip: '95014',
        email: 'grace@example.com',
        country: 'us',
      },
      creditCard: {
        cardLastFourDigits: '1471',
        cardType: 'MASTERCARD',
        cardSubType: 'CREDIT',
        cardCategory: 'CLASSIC',
      },
      wallet: {
        walletType: 'APPLE_PAY',
        billingContactInfo: {
          firstName: 'Grace',
          lastName: 'Hopper',
          address1: '1 Infinite Loop',
          address2: 'Building 2',
          city: 'Cupertino',
          state: 'CA',
          zip: '95014',
          country: 'us',
        },
        tokenizedCard: {
          cardLastFourDigits: '1471',
          cardType: 'MASTERCARD',
          cardSubType: 'CREDIT',
          // From the decrypted payment data: the device account number and its expiry.
          dpanLastFourDigits: '0010',
          dpanExpirationMonth: '08',
          dpanExpirationYear: '2029',
        },
      },
    });
  });

  it('charges a mobile token in XML and answers the wallet section in XML', async () => {
    const token = apple('mobile', {
      environment: 'TEST',
      displayName: 'Visa 0492',
      type: 'prepaid',
      billingContact: null,
    });
    const reply = await api.post('/transactions', walletXml('APPLE_PAY', token), asCardTransaction);
    expectOk(reply);
    expect(reply.text).toContain(
      '<credit-card><card-last-four-digits>0492</card-last-four-digits><card-type>VISA</card-type><card-sub-type>DEBIT</card-sub-type><card-category>PREPAID</card-category></credit-card><wallet><wallet-type>APPLE_PAY</wallet-type><tokenized-card><card-last-four-digits>0492</card-last-four-digits>',
    );
    expect(reply.body.cardHolderInfo).toBeUndefined();
    expectNoTokenData(reply.text);
  });

  it('authorizes and reverses a wallet authorization (the card transaction endpoint, XML)', async () => {
    const auth = await pay('APPLE_PAY', apple('web', { environment: 'PRODUCTION' }), {
      cardTransactionType: 'AUTH_ONLY',
    });
    const reversal = await api.put(
      '/transactions',
      xmlDocument('card-transaction', {
        cardTransactionType: 'AUTH_REVERSAL',
        transactionId: auth.transactionId,
      }),
      asCardTransaction,
    );
    expectOk(reversal);
    expect(reversal.text).toContain('<card-transaction-type>AUTH_REVERSAL</card-transaction-type>');
    expect(reversal.text).toContain('<wallet-type>APPLE_PAY</wallet-type>');
    expect(reversal.body.transactionId).toBe(auth.transactionId);
    const captureAfter = await api.put('/transactions', {
      cardTransactionType: 'CAPTURE',
      transactionId: auth.transactionId,
    });
    expectError(captureAfter, 400, 'AUTHORIZATION_AMOUNT_ALREADY_REVERSED', 14002);
  });
});

describe('what the processor gets', () => {
  it("the wallet's sealed payment data and environment, never a card number; capture by the auth's network id", async () => {
    const data = googlePayMobileData({ environment: 'TEST', cardNetwork: 'VISA', cardDetails: '1111' });
    const auth = await pay('GOOGLE_PAY', encodeMobile(data), {
      cardTransactionType: 'AUTH_ONLY',
      amount: 12,
    });
    const googleRequest = authorizations.at(-1);
    expect(googleRequest).toMatchObject({
      amountMinor: 1200,
      currency: 'USD',
      cardHolder: { firstName: 'Card Holder', lastName: 'Name', zip: '94043' },
      wallet: {
        walletType: 'GOOGLE_PAY',
        environment: 'TEST',
        brand: 'VISA',
        lastFour: '1111',
        paymentData: 'examplePaymentMethodToken',
      },
    });
    expect(googleRequest?.card).toBeUndefined();

    expectOk(
      await api.put('/transactions', { cardTransactionType: 'CAPTURE', transactionId: auth.transactionId }),
    );
    expect(captures.at(-1)).toEqual([auth.processingInfo.networkTransactionId, 1200]);

    const payment = applePayPayment({ environment: 'PRODUCTION' });
    remember(payment.token.paymentData.data);
    await pay('APPLE_PAY', encodeWeb(payment));
    expect(authorizations.at(-1)?.wallet).toEqual({
      walletType: 'APPLE_PAY',
      environment: 'PRODUCTION',
      brand: 'VISA',
      lastFour: '0492',
      paymentData: JSON.stringify(payment.token.paymentData),
      // Verified and decrypted with the merchant's key: the device account number to charge.
      decrypted: {
        number: '4895370012003478',
        expirationMonth: '12',
        expirationYear: '2031',
        cryptogram: expect.any(String),
        eci: '5',
      },
    });
  });
});

describe('GET /transactions/{id} of a wallet payment', () => {
  it('shows the same body as the original answer, wallet section included, in JSON and XML', async () => {
    const sale = await api.post(
      '/transactions',
      walletBody('GOOGLE_PAY', google('mobile', { environment: 'PRODUCTION' })),
    );
    expectOk(sale);
    const got = await api.get(`/transactions/${sale.body.transactionId}`);
    expectOk(got);
    expect(got.text).toBe(sale.text);

    const xmlSale = await api.post('/transactions', walletXml('APPLE_PAY', apple('web')), asCardTransaction);
    expectOk(xmlSale);
    const xmlGot = await api.get(`/transactions/${xmlSale.body.transactionId}`, {
      ...asCardTransaction,
      accept: 'application/xml',
    });
    expectOk(xmlGot);
    expect(xmlGot.text).toBe(xmlSale.text);
  });
});

describe('vaulting', () => {
  it("attaches a wallet payment to a returning shopper without vaulting the token; vaultedShopperId alone charges the shopper's card", async () => {
    const first = await api.post('/transactions', saleBody());
    expectOk(first);
    const shopperId = first.body.vaultedShopperId;

    const walletPayment = await pay(
      'APPLE_PAY',
      apple('web', { environment: 'PRODUCTION', displayName: 'Visa 7777' }),
      {
        vaultedShopperId: shopperId,
      },
    );
    expect(walletPayment.vaultedShopperId).toBe(shopperId);
    expect(walletPayment.creditCard.cardLastFourDigits).toBe('7777');

    const shopper = await api.get(`/vaulted-shoppers/${shopperId}`);
    expect(shopper.body.paymentSources.creditCardInfo).toEqual([
      expect.objectContaining({ creditCard: expect.objectContaining({ cardLastFourDigits: '9299' }) }),
    ]);
    expect(shopper.body.lastPaymentInfo.creditCard).toEqual({ cardLastFourDigits: '7777', cardType: 'VISA' });

    const again = await api.post('/transactions', {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 5,
      currency: 'USD',
      vaultedShopperId: shopperId,
    });
    expectOk(again);
    expect(again.body.creditCard.cardLastFourDigits).toBe('9299');
    expect(again.body.wallet).toBeUndefined();
  });

  it('refuses vaultedShopperId alone for a shopper who only ever paid with a wallet (20012)', async () => {
    const paid = await pay('GOOGLE_PAY', google('web', { environment: 'PRODUCTION' }));
    const reply = await api.post('/transactions', {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 5,
      currency: 'USD',
      vaultedShopperId: paid.vaultedShopperId,
    });
    expectError(reply, 400, 'INVALID_PAYMENT_DETAILS', 20012);
  });

  it("refuses another merchant's shopper like an unknown one", async () => {
    const other = await walletMerchant();
    const theirs = await pay('GOOGLE_PAY', google('web'), {}, other);
    const reply = await api.post(
      '/transactions',
      walletBody('GOOGLE_PAY', google('web'), { vaultedShopperId: theirs.vaultedShopperId }),
    );
    expectError(reply, 404, 'SHOPPER_NOT_FOUND', 20002);
  });
});

describe('refunds and events of wallet payments', () => {
  it('refunds like a card payment and reports card fields in its IPNs', async () => {
    const merchant = await walletMerchant();
    await configureIpn(merchant);
    const sale = await pay(
      'GOOGLE_PAY',
      google('mobile', {
        environment: 'PRODUCTION',
        cardNetwork: 'DISCOVER',
        cardDetails: '1117',
        cardClass: 'DEBIT',
      }),
      { amount: 30 },
      merchant,
    );
    const partial = await api.post(
      `/transactions/refund/${sale.transactionId}`,
      { amount: 10, reason: 'one item' },
      as(merchant),
    );
    expectOk(partial);
    expect(partial.body).toMatchObject({
      transactionId: sale.transactionId,
      amount: 10,
      refundStatus: 'SUCCESS',
    });
    const rest = await api.put(`/transactions/${sale.transactionId}/refund`, undefined, as(merchant));
    expect(rest.status, rest.text).toBe(204);
    expectError(
      await api.post(`/transactions/refund/${sale.transactionId}`, { amount: 1 }, as(merchant)),
      400,
      'REFUND_AMOUNT_EXCEEDS_BALANCE',
      20011,
    );

    const [charge] = await ipnBodies(merchant, 'Charge');
    expect(Object.fromEntries(charge ?? [])).toMatchObject({
      transactionType: 'CHARGE',
      referenceNumber: sale.transactionId,
      paymentMethod: 'CC',
      creditCardType: 'DISCOVER',
      creditCardLastFourDigits: '1117',
      cardSubType: 'DEBIT',
      cardCategory: 'CLASSIC',
      creditCardExpDate: '',
      firstName: 'Card Holder',
      lastName: 'Name',
      invoiceAmount: '30.00',
    });
    const refunds = await ipnBodies(merchant, 'Refund');
    expect(refunds.map((params) => params.get('invoiceAmount'))).toEqual(['10.00', '20.00']);
    expect(refunds.every((params) => params.get('creditCardLastFourDigits') === '1117')).toBe(true);
  });

  it('declines by the sandbox amount rule with 14002, writes nothing, and reports the Decline', async () => {
    const merchant = await walletMerchant();
    await configureIpn(merchant);
    const before = await rowCounts(merchant);
    for (const [walletType, token] of [
      ['GOOGLE_PAY', google('web', { environment: 'TEST' })],
      ['APPLE_PAY', apple('mobile', { environment: 'PRODUCTION', displayName: 'Visa 4242' })],
    ] as const) {
      const reply = await api.post(
        '/transactions',
        walletBody(walletType, token, { amount: '10.51' }),
        as(merchant),
      );
      expectError(reply, 400, 'INSUFFICIENT_FUNDS', 14002);
    }
    expect(await rowCounts(merchant)).toEqual(before);
    const declines = await ipnBodies(merchant, 'Decline');
    expect(
      declines.map((params) => [params.get('creditCardType'), params.get('creditCardLastFourDigits')]),
    ).toEqual([
      ['VISA', '1111'],
      ['VISA', '4242'],
    ]);
  });
});

describe('invalid wallet input', () => {
  const goodGoogle = () => google('web', { environment: 'PRODUCTION' });

  /** A 400 naming the property, no 5xx, nothing written, no token data echoed. */
  async function expectRefused(body: unknown, property: string, options: CallOptions = {}, problem?: RegExp) {
    const before = await rowCounts(stack.merchant);
    const reply = await api.post('/transactions', body, options);
    const message = expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
    expect(message.invalidProperty?.name, reply.text).toBe(property);
    expect(message.invalidProperty?.messageValue).toBeUndefined();
    if (problem) expect(message.description).toMatch(problem);
    expect(await rowCounts(stack.merchant)).toEqual(before);
    return message;
  }

  const base64Of = (text: string) => Buffer.from(text, 'utf8').toString('base64');

  it('refuses a token that is not base-64, not UTF-8, not JSON, or not an object', async () => {
    const token = goodGoogle();
    await expectRefused(
      walletBody('GOOGLE_PAY', `${token.slice(0, 50)}*${token.slice(50)}`),
      'wallet.encodedPaymentToken',
      {},
      /not base-64/,
    );
    await expectRefused(
      walletBody('GOOGLE_PAY', `${token.slice(0, 50)}_+${token.slice(50)}`),
      'wallet.encodedPaymentToken',
      {},
      /not base-64/,
    );
    await expectRefused(
      walletBody('GOOGLE_PAY', Buffer.from([0xc3, 0x28, 0x7b]).toString('base64')),
      'wallet.encodedPaymentToken',
      {},
      /UTF-8/,
    );
    await expectRefused(
      walletBody('GOOGLE_PAY', base64Of('{"paymentMethodData": {')),
      'wallet.encodedPaymentToken',
      {},
      /JSON/,
    );
    await expectRefused(
      walletBody('APPLE_PAY', base64Of('["token"]')),
      'wallet.encodedPaymentToken',
      {},
      /JSON object/,
    );
  });

  it('refuses a token missing the fields its wallet writes, naming the field inside it', async () => {
    const google = googlePayWebPaymentData({ environment: 'PRODUCTION' });
    const { info } = google.paymentMethodData;
    const noNetwork = {
      ...google,
      paymentMethodData: { ...google.paymentMethodData, info: { ...info, cardNetwork: undefined } },
    };
    await expectRefused(
      walletBody('GOOGLE_PAY', encodeWeb(noNetwork)),
      'wallet.encodedPaymentToken',
      {},
      /paymentMethodData\.info\.cardNetwork is required/,
    );
    await expectRefused(
      walletBody('GOOGLE_PAY', encodeWeb({ apiVersion: 2 })),
      'wallet.encodedPaymentToken',
      {},
      /paymentMethodData is required/,
    );
    const payment = applePayPayment({ environment: 'PRODUCTION' });
    const noMethod = { ...payment, token: { ...payment.token, paymentMethod: undefined } };
    await expectRefused(
      walletBody('APPLE_PAY', encodeWeb(noMethod)),
      'wallet.encodedPaymentToken',
      {},
      /token\.paymentMethod is required/,
    );
    // A Google token sent as Apple Pay is not an Apple Pay token.
    await expectRefused(
      walletBody('APPLE_PAY', goodGoogle()),
      'wallet.encodedPaymentToken',
      {},
      /token\.paymentData is required/,
    );
    const forged = {
      ...payment,
      token: {
        ...payment.token,
        paymentData: { ...payment.token.paymentData, signature: base64Of('not a signature') },
      },
    };
    await expectRefused(
      walletBody('APPLE_PAY', encodeWeb(forged)),
      'wallet.encodedPaymentToken',
      {},
      /not signed by an Apple Pay certificate/,
    );
  });

  it('refuses an unknown or missing wallet type and a missing or empty token', async () => {
    await expectRefused(walletBody('SAMSUNG_PAY' as WalletType, goodGoogle()), 'wallet.walletType');
    await expectRefused(
      { ...walletBody('GOOGLE_PAY', ''), wallet: { encodedPaymentToken: goodGoogle() } },
      'wallet.walletType',
    );
    await expectRefused(
      { ...walletBody('GOOGLE_PAY', ''), wallet: { walletType: 'GOOGLE_PAY' } },
      'wallet.encodedPaymentToken',
    );
    await expectRefused(walletBody('GOOGLE_PAY', '   '), 'wallet.encodedPaymentToken');
    await expectRefused({ ...walletBody('GOOGLE_PAY', ''), wallet: goodGoogle() }, 'wallet');
    await expectRefused(walletBody('GOOGLE_PAY', 12345 as unknown as string), 'wallet.encodedPaymentToken');
  });

  it('refuses wallet together with creditCard or pfToken', async () => {
    const { creditCard } = saleBody();
    await expectRefused(
      walletBody('GOOGLE_PAY', goodGoogle(), { creditCard }),
      'wallet',
      {},
      /either wallet or creditCard/,
    );
    await expectRefused(
      walletBody('GOOGLE_PAY', goodGoogle(), { pfToken: 'abc' }),
      'wallet',
      {},
      /either wallet or pfToken/,
    );
  });

  it('refuses a bad token in XML with an XML error body', async () => {
    const reply = await api.post('/transactions', walletXml('APPLE_PAY', 'bm90IGpzb24'), { format: 'xml' });
    expect(reply.headers.get('content-type')).toMatch(/application\/xml/);
    expect(reply.text).toContain('<messages');
    const message = expectError(reply, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
    expect(message.invalidProperty?.name).toBe('wallet.encodedPaymentToken');
    const noType = await api.post(
      '/transactions',
      xmlDocument('card-transaction', {
        ...walletBody('GOOGLE_PAY', goodGoogle(), { amount: '1.00' }),
        wallet: { encodedPaymentToken: goodGoogle() },
      }),
      { format: 'xml' },
    );
    expect(expectError(noType, 400, 'VALIDATION_GENERAL_FAILURE', 10001).invalidProperty?.name).toBe(
      'wallet.walletType',
    );
  });
});

describe("production tokens are verified and decrypted with the merchant's keys", () => {
  it('charges the decrypted device account number of a Google Pay network token, with its cryptogram', async () => {
    const before = authorizations.length;
    const body = await pay(
      'GOOGLE_PAY',
      google('web', {
        environment: 'PRODUCTION',
        cardDetails: '4444',
        cardNetwork: 'MASTERCARD',
        tokenOptions: { pan: '5204240000004242', authMethod: 'CRYPTOGRAM_3DS' },
      }),
    );
    expect(body.creditCard.cardLastFourDigits).toBe('4444');
    expect(body.wallet.tokenizedCard).toEqual({
      cardLastFourDigits: '4444',
      cardType: 'MASTERCARD',
      cardSubType: 'CREDIT',
      dpanLastFourDigits: '4242',
      dpanExpirationMonth: '12',
      dpanExpirationYear: '2031',
    });
    expect(authorizations.length).toBe(before + 1);
    expect(authorizations.at(-1)?.wallet?.decrypted).toEqual({
      number: '5204240000004242',
      expirationMonth: '12',
      expirationYear: '2031',
      cryptogram: expect.any(String),
      eci: '05',
    });
  });

  it('charges the card inside the token, not the one its clear part names: a declining sandbox card declines', async () => {
    const merchant = await walletMerchant();
    const before = await rowCounts(merchant);
    const token = google('mobile', {
      environment: 'PRODUCTION',
      cardDetails: '1111',
      tokenOptions: { pan: '4917484589897107' },
    });
    const reply = await api.post('/transactions', walletBody('GOOGLE_PAY', token), as(merchant));
    expectError(reply, 400, 'DO_NOT_HONOR', 14002);
    expect(await rowCounts(merchant)).toEqual(before);
    // A PAN_ONLY token's last four are the decrypted number's: the clear part is not signed.
    const approved = await pay(
      'GOOGLE_PAY',
      google('web', {
        environment: 'PRODUCTION',
        cardDetails: '9999',
        tokenOptions: { pan: '4007702835532454' },
      }),
    );
    expect(approved.creditCard.cardLastFourDigits).toBe('2454');
  });

  /** 400 20012 naming the token, nothing written and nothing sent to the processor. */
  async function expectUnusable(
    walletType: WalletType,
    token: string,
    reason: RegExp,
    merchant = stack.merchant,
  ) {
    const before = await rowCounts(merchant);
    const calls = authorizations.length;
    const reply = await api.post('/transactions', walletBody(walletType, token), as(merchant));
    const message = expectError(reply, 400, 'INVALID_PAYMENT_DETAILS', 20012);
    expect(message.invalidProperty?.name).toBe('wallet.encodedPaymentToken');
    expect(message.description).toMatch(reason);
    expect(await rowCounts(merchant)).toEqual(before);
    expect(authorizations.length).toBe(calls);
  }

  /** A Google web token whose gateway token is changed by `change` (JSON in, JSON out). */
  function googleWith(
    change: (token: Record<string, unknown>) => Record<string, unknown>,
    options: GooglePayOptions = {},
  ) {
    const data = googlePayWebPaymentData({ environment: 'PRODUCTION', ...options });
    const { tokenizationData } = data.paymentMethodData;
    const changed = JSON.stringify(change(JSON.parse(tokenizationData.token)));
    rememberGoogleToken(changed);
    const encoded = encodeWeb({
      ...data,
      paymentMethodData: {
        ...data.paymentMethodData,
        tokenizationData: { ...tokenizationData, token: changed },
      },
    });
    remember(encoded);
    return encoded;
  }

  const flip = (base64: string, at: number) => {
    const bytes = Buffer.from(base64, 'base64');
    bytes[at] = (bytes[at] ?? 0) ^ 0x01;
    return bytes.toString('base64');
  };

  it('refuses a Google Pay token with a tampered signature, for another key, with an expired intermediate key, or for another merchant id', async () => {
    await expectUnusable(
      'GOOGLE_PAY',
      googleWith((token) => ({ ...token, signature: flip(token.signature as string, 10) })),
      /not signed by the intermediate key/,
    );
    await expectUnusable(
      'GOOGLE_PAY',
      google('web', { environment: 'PRODUCTION', tokenOptions: { merchantPublicKey: strangerKey() } }),
      /cannot be decrypted with the merchant's keys/,
    );
    await expectUnusable(
      'GOOGLE_PAY',
      google('web', {
        environment: 'PRODUCTION',
        tokenOptions: { intermediateExpiration: Date.now() - 60_000 },
      }),
      /intermediate signing key has expired/,
    );
    await expectUnusable(
      'GOOGLE_PAY',
      google('mobile', { environment: 'PRODUCTION', tokenOptions: { gatewayMerchantId: 'someone-else' } }),
      /another gateway merchant id/,
    );
    await expectUnusable(
      'GOOGLE_PAY',
      google('web', { environment: 'PRODUCTION', tokenOptions: { recipientId: 'gateway:another-gateway' } }),
      /for this recipient/,
    );
    await expectUnusable(
      'GOOGLE_PAY',
      google('web', { environment: 'PRODUCTION', tokenOptions: { messageExpiration: Date.now() - 60_000 } }),
      /message has expired/,
    );
  });

  it('refuses an Apple Pay token with a tampered signature, for another key or merchant id, from an untrusted chain, or signed long ago', async () => {
    const tampered = applePayPayment({ environment: 'PRODUCTION' });
    const { paymentData } = tampered.token;
    paymentData.signature = flip(paymentData.signature, Math.floor(paymentData.signature.length * 0.75) - 20);
    remember(paymentData.data);
    await expectUnusable('APPLE_PAY', encodeWeb(tampered), /signature is not valid/);
    await expectUnusable(
      'APPLE_PAY',
      apple('web', { environment: 'PRODUCTION', data: { merchantPublicKey: strangerKey() } }),
      /not encrypted for the merchant's keys/,
    );
    await expectUnusable(
      'APPLE_PAY',
      apple('mobile', {
        environment: 'PRODUCTION',
        data: { merchantIdentifier: 'merchant.com.someone.else' },
      }),
      /cannot be decrypted for this merchant/,
    );
    await expectUnusable(
      'APPLE_PAY',
      apple('web', {
        environment: 'PRODUCTION',
        data: { signature: { chain: newAppleChain('PRODUCTION') } },
      }),
      /do not chain to a configured Apple root/,
    );
    await expectUnusable(
      'APPLE_PAY',
      apple('web', {
        environment: 'PRODUCTION',
        data: { signature: { signingTime: new Date(Date.now() - 2 * 3_600_000) } },
      }),
      /signing time/,
    );
  });

  it('refuses production tokens of a merchant without wallet keys, in JSON and XML; test tokens stay dummies', async () => {
    const merchant = await stack.newMerchant();
    await expectUnusable(
      'GOOGLE_PAY',
      google('web', { environment: 'PRODUCTION' }),
      /no Google Pay keys/,
      merchant,
    );
    await expectUnusable(
      'APPLE_PAY',
      apple('web', { environment: 'PRODUCTION' }),
      /no Apple Pay keys/,
      merchant,
    );
    const xml = await api.post(
      '/transactions',
      walletXml('APPLE_PAY', apple('mobile', { environment: 'PRODUCTION' })),
      as(merchant, { format: 'xml' }),
    );
    expect(xml.status).toBe(400);
    expect(xml.text).toContain('<error-name>INVALID_PAYMENT_DETAILS</error-name>');
    expect(xml.text).toContain('<code>20012</code>');
    expectNoTokenData(xml.text);
    // The sandbox's dummy tokens need no keys, as before.
    const dummy = await pay('GOOGLE_PAY', google('web', { environment: 'TEST' }), {}, merchant);
    expect(dummy.processingInfo.processingStatus).toBe('success');
    expect(authorizations.at(-1)?.wallet?.decrypted).toBeUndefined();
  });

  it('keeps the keys sealed: an admin sees which wallets are configured, never a key; a bad key is refused', async () => {
    const merchant = await stack.newMerchant();
    const keys = testMerchantWalletKeys(merchant.id);
    const view = await operator.wallets.configureKeys.mutate(keys);
    expect(view).toEqual({
      merchantId: merchant.id,
      googlePay: { recipientId: 'gateway:paywire', gatewayMerchantId: 'paywire-test-merchant', keys: 1 },
      applePay: { merchantIdentifier: 'merchant.com.example.paywire', keys: 1 },
    });
    expect(await operator.wallets.keys.query({ merchantId: merchant.id })).toEqual(view);
    const { rows } = await db.query<{ sealed_keys: string }>(
      'select sealed_keys from wallet_keys where merchant_id = $1',
      [merchant.id],
    );
    const sealed = rows[0]?.sealed_keys ?? '';
    expect(sealed).toMatch(/^v2:\d+:/); // under a data key, bound to the merchant's row
    const keyBody = (keys.googlePay.privateKeys[0] ?? '').split('\n')[1] ?? 'missing';
    expect(sealed).not.toContain(keyBody);
    expect(stack.logs.join('\n')).not.toContain(keyBody);

    await expect(
      operator.wallets.configureKeys.mutate({
        merchantId: merchant.id,
        applePay: { merchantIdentifier: 'merchant.x', privateKeys: ['not a key'] },
      }),
    ).rejects.toThrow(/applePay\.privateKeys\.0: is not a PKCS #8 private key/);
    // Removing one wallet's keys keeps the other's.
    expect(
      await operator.wallets.configureKeys.mutate({ merchantId: merchant.id, applePay: null }),
    ).toMatchObject({
      googlePay: { keys: 1 },
      applePay: null,
    });
  });
});

describe('npm run wallet-keys', () => {
  it("sets a merchant's keys from PEM files, shows them without the keys, and the merchant's production tokens open", async () => {
    const merchant = await stack.newMerchant();
    const keys = testMerchantWalletKeys(merchant.id);
    const dir = mkdtempSync(path.join(tmpdir(), 'paywire-wallet-'));
    const googleKey = path.join(dir, 'google.pem');
    const appleKey = path.join(dir, 'apple.pem');
    writeFileSync(googleKey, keys.googlePay.privateKeys[0] ?? '', { mode: 0o600 });
    writeFileSync(appleKey, keys.applePay.privateKeys[0] ?? '', { mode: 0o600 });
    const operator = await operatorCliEnv(stack); // through core's admin procedures
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['infra/wallet-keys.ts', ...args], {
        env: { ...process.env, ...operator },
      });
    const set = await cli(
      'set',
      ...['--merchant', String(merchant.id), '--google-recipient', keys.googlePay.recipientId],
      ...['--google-gateway-merchant-id', keys.googlePay.gatewayMerchantId, '--google-key-file', googleKey],
      ...['--apple-merchant-identifier', keys.applePay.merchantIdentifier, '--apple-key-file', appleKey],
    );
    expect(set.stdout).toContain(
      `merchant ${merchant.id}\tGoogle Pay: gateway:paywire (gateway merchant id paywire-test-merchant), 1 key(s)`,
    );
    expect(set.stdout).toContain('Apple Pay: merchant.com.example.paywire, 1 key(s)');
    expect(set.stdout + set.stderr).not.toContain('PRIVATE KEY');
    await pay('GOOGLE_PAY', google('web', { environment: 'PRODUCTION' }), {}, merchant);
    await pay('APPLE_PAY', apple('web', { environment: 'PRODUCTION' }), {}, merchant);

    const removed = await cli('remove', '--merchant', String(merchant.id), '--wallet', 'apple');
    expect(removed.stdout).toContain('Apple Pay: none');
    const shown = await cli('show', '--merchant', String(merchant.id));
    expect(shown.stdout).toContain('Google Pay: gateway:paywire');
    const reply = await api.post(
      '/transactions',
      walletBody('APPLE_PAY', apple('web', { environment: 'PRODUCTION' })),
      as(merchant),
    );
    expectError(reply, 400, 'INVALID_PAYMENT_DETAILS', 20012);
  });
});

describe('live mode', () => {
  let live: Stack;
  let liveApi: ReturnType<typeof client>;

  beforeAll(async () => {
    live = await startLiveStack();
    liveApi = client(live);
    const liveOperator = await operatorOf(live);
    await liveOperator.wallets.configureKeys.mutate(testMerchantWalletKeys(live.merchant.id));
  });
  afterAll(() => live?.close());

  it('refuses test tokens of both wallets, both forms, with 400 20012 and writes nothing', async () => {
    const tokens: Array<[WalletType, string]> = [
      ['GOOGLE_PAY', google('web', { environment: 'TEST' })],
      ['GOOGLE_PAY', google('mobile', { environment: 'TEST' })],
      // A signed token for a card of Google's test card suite is a TEST one too.
      ['GOOGLE_PAY', google('web', { environment: 'PRODUCTION', description: 'Test Card: Visa •••• 1111' })],
      ['APPLE_PAY', apple('web', { environment: 'TEST' })],
      ['APPLE_PAY', apple('mobile', { environment: 'TEST' })],
    ];
    for (const [walletType, token] of tokens) {
      const reply = await liveApi.post('/transactions', walletBody(walletType, token));
      const message = expectError(reply, 400, 'INVALID_PAYMENT_DETAILS', 20012);
      expect(message.invalidProperty?.name).toBe('wallet.encodedPaymentToken');
    }
    const xml = await liveApi.post(
      '/transactions',
      walletXml('APPLE_PAY', apple('web', { environment: 'TEST' })),
      { format: 'xml' },
    );
    expect(xml.text).toContain('<code>20012</code>');
    const liveDb = new pg.Client({ connectionString: live.databaseUrl });
    await liveDb.connect();
    try {
      const { rows: written } = await liveDb.query<{ n: number }>(
        'select count(*)::int as n from card_transaction',
      );
      expect(written[0]?.n).toBe(0);
    } finally {
      await liveDb.end();
    }
  });

  it('charges production tokens of both wallets', async () => {
    // Adyen is sent the card inside the token, so its device account number must be one Adyen's test
    // environment knows (Google Pay's default already is).
    const data = { dpan: '4111111111111111' };
    for (const [walletType, token] of [
      ['GOOGLE_PAY', google('web', { environment: 'PRODUCTION' })],
      ['GOOGLE_PAY', google('mobile', { environment: 'PRODUCTION' })],
      ['APPLE_PAY', apple('web', { environment: 'PRODUCTION', data })],
      ['APPLE_PAY', apple('mobile', { environment: 'PRODUCTION', data })],
    ] as Array<[WalletType, string]>) {
      const reply = await liveApi.post('/transactions', walletBody(walletType, token));
      expectOk(reply);
      expect(reply.body.wallet.walletType).toBe(walletType);
      expectNoTokenData(reply.text);
    }
  });

  it('logs nothing of the tokens either', () => {
    expectNoTokenData(live.logs.join('\n'));
  });
});

describe('token data at rest and in logs', () => {
  it('is in no column, IPN, log line or printed output', async () => {
    const { rows } = await db.query<{ dump: string }>(
      `select concat_ws('|',
         (select string_agg(row_to_json(t)::text, '|') from card_transaction t),
         (select string_agg(row_to_json(s)::text, '|') from shopper s),
         (select string_agg(row_to_json(c)::text, '|') from stored_card c),
         (select string_agg(body, '|') from ipn_delivery),
         (select string_agg(row_to_json(i)::text, '|') from idempotency_record i)) as dump`,
    );
    const dump = rows[0]?.dump ?? '';
    expect(dump).toContain('GOOGLE_PAY');
    expectNoTokenData(dump);
    expect(secrets.size).toBeGreaterThan(40);
    expectNoTokenData(stack.logs.join('\n'));
    expect(stack.logs.length).toBeGreaterThan(0);
    expectNoTokenData(stdout.printed.join(''));
  });
});
