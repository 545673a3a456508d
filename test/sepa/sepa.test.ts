import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { type RunningCore, startCore } from '@paywire/core';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SepaBank, sandboxSepaBank } from '../../apps/core/src/sepa/bank.ts';
import { collectedIban, deliveredIpn, merchantWithDebitIpn, sepaDebitBody } from '../support/debits.ts';
import {
  as,
  type CallOptions,
  client,
  expectStatus,
  type Reply,
  saleBody,
  xmlDocument,
} from '../support/http.ts';
import { type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { type Stack, startFacade, startStack, type TestFacade, type TestMerchant } from '../support/stack.ts';
import { captureStdout } from '../support/stdout.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// SEPA direct debit (see docs/conformance.md: SEPA direct debit, IPN delivery,
// Sandbox clock, Errors, Refunds) over real HTTP, real PostgreSQL, real
// XML, with settlement by the core's own pg-boss workers and a real IPN receiver.
// ---------------------------------------------------------------------------------------------------------

/** The sandbox IBANs (docs/conformance.md, SEPA direct debit). */
const SUCCEEDS = collectedIban;
const FAILS = 'DE62370400440532013001';
const RETURNED = 'DE35370400440532013002';
/** More valid IBANs of supported countries (published examples). */
const DUTCH = 'NL91ABNA0417164300';
const FRENCH = 'FR1420041010050500013M02606';
const BRITISH = 'GB29NWBK60161331926819'; // valid, but the United Kingdom is not a SEPA debit country here
/** Every IBAN this file sends: none may come back whole, reach a log or rest in plain text. */
const IBANS = [SUCCEEDS, FAILS, RETURNED, DUTCH, FRENCH, BRITISH, 'DE88370400440532013000'];

const MANDATE_DATE = /^\d{2}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2}$/;
const IPN_DATE = /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} (AM|PM)$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const altShape = { root: 'alt-transaction' };
const asAltXml: CallOptions = { format: 'xml', shape: altShape };
const translationsShape = { root: 'sepa-pre-notification', wrapped: { translations: 'translation' } };

// --- the stack --------------------------------------------------------------------------------------------

let stack: Stack;
let api: ReturnType<typeof client>;
let db: pg.Pool;
let receiver: IpnReceiver;
let stdout: ReturnType<typeof captureStdout>;

beforeAll(async () => {
  stdout = captureStdout();
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  api = client(stack);
  db = stack.db;
});

afterAll(async () => {
  stdout?.restore();
  await stack?.close();
  await receiver?.close();
});

/** POST /alt-transactions that must succeed; the JSON body. */
async function debit(overrides: Record<string, unknown> = {}, merchant = stack.merchant) {
  return expectStatus(await api.post('/alt-transactions', sepaDebitBody(overrides), as(merchant)), 200).body;
}

const getDebit = async (id: string, merchant = stack.merchant) =>
  expectStatus(await api.get(`/alt-transactions/${id}`, as(merchant)), 200).body;

/** Moves the merchant's sandbox clock. */
async function advance(merchant: TestMerchant, advanceBy: string) {
  expectStatus(await api.put('/sandbox/clock', { advanceBy }, as(merchant)), 200);
}

/** Polls GET until the debit shows the status: a few seconds at most (the clock advance kicks settlement). */
async function until(id: string, status: string, merchant: TestMerchant, timeoutMs = 8000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await getDebit(id, merchant);
    if (body.processingInfo.processingStatus === status) return body;
    if (Date.now() > deadline) {
      throw new Error(
        `debit ${id} is ${body.processingInfo.processingStatus}, not ${status}, after ${timeoutMs} ms`,
      );
    }
    await delay(100);
  }
}

/**
 * Returns once a settlement run has started and finished after this call: a control debit of a merchant of
 * its own, made due now, has settled. A run scans every merchant, so what it left PENDING was not due.
 */
async function aSettlementRun() {
  const control = await stack.newMerchant();
  const created = await debit({}, control);
  await advance(control, 'PT5M');
  await until(created.transactionId, 'SUCCESS', control);
}

const ipn = (transactionType: string, referenceNumber: string) =>
  deliveredIpn(receiver, transactionType, referenceNumber);

const merchantWithIpn = () => merchantWithDebitIpn(stack, api, receiver);

/** A debit collected (SUCCESS) for a merchant of its own. */
async function collectedDebit(overrides: Record<string, unknown> = {}) {
  const merchant = await merchantWithIpn();
  const created = await debit(overrides, merchant);
  await advance(merchant, 'PT3M');
  await until(created.transactionId, 'SUCCESS', merchant);
  return { merchant, created };
}

/** The merchant's clock now, from the API. */
async function clockOf(merchant: TestMerchant): Promise<Date> {
  return new Date(expectStatus(await api.get('/sandbox/clock', as(merchant)), 200).body.now);
}

const shortDate = (date: Date) =>
  `${String(date.getUTCDate()).padStart(2, '0')}-${MONTHS[date.getUTCMonth()]}-${String(date.getUTCFullYear() % 100).padStart(2, '0')}`;

/** A 400 whose first message has the code and names the property. */
function expectInvalid(reply: Reply, property: string, code = 10001) {
  expect(reply.status, reply.text).toBe(400);
  const [first] = reply.body?.message ?? [];
  expect(Number(first?.code), reply.text).toBe(code);
  expect(first?.invalidProperty?.name, reply.text).toBe(property);
  return first;
}

// ---------------------------------------------------------------------------------------------------------

describe('POST /alt-transactions (JSON)', () => {
  it('opens a pending debit: 200, masked IBAN, mandate, pre-notification and its translations URL', async () => {
    const merchant = await stack.newMerchant();
    const before = await clockOf(merchant);
    const reply = expectStatus(
      await api.post(
        '/alt-transactions',
        sepaDebitBody({ merchantTransactionId: `sepa-${randomUUID()}` }),
        as(merchant),
      ),
      200,
    );
    expect(reply.headers.get('content-type')).toMatch(/application\/json/);
    const body = reply.body;
    expect(body).toMatchObject({
      amount: 10.5,
      currency: 'EUR',
      payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
      authorizedByShopper: true,
      sepaDirectDebitTransaction: { ibanFirstFour: 'DE89', ibanLastFour: '3000' },
      processingInfo: { processingStatus: 'PENDING' },
    });
    expect(body.transactionId).toMatch(/^\d+$/);
    expect(body.merchantTransactionId).toMatch(/^sepa-/);
    expect(Number.isInteger(body.vaultedShopperId)).toBe(true);
    const sepa = body.sepaDirectDebitTransaction;
    expect(sepa.mandateId).toMatch(/^[A-Z0-9]{6,35}$/);
    expect(sepa.mandateDate).toMatch(MANDATE_DATE);
    expect([shortDate(before), shortDate(new Date(before.getTime() + 60_000))]).toContain(sepa.mandateDate);
    expect(sepa.preNotificationText).toContain('EUR 10.50');
    expect(sepa.preNotificationText).toContain(sepa.mandateId);
    expect(sepa.preNotificationText).toContain('3000');
    expect(sepa.preNotificationTranslationRef).toBe(
      `${stack.baseUrl}/translations/sepa/prenotification?transactionid=${body.transactionId}`,
    );
    expect(reply.text).not.toContain('370400440532013000');
  });

  it('GET /alt-transactions/{id} shows the same debit', async () => {
    const created = await debit();
    expect(await getDebit(created.transactionId)).toEqual(created);
    expectStatus(await api.get(`/alt-transactions/${created.transactionId}/`), 200);
  });

  it('takes the id from the card transactions sequence: a card id is not a debit and vice versa', async () => {
    const sale = expectStatus(await api.post('/transactions', saleBody()), 200).body;
    const created = await debit();
    expect(Number(created.transactionId)).toBeGreaterThan(Number(sale.transactionId));
    expect(Number(created.transactionId)).toBeLessThan(2_000_000_000);
    expectStatus(await api.get(`/alt-transactions/${sale.transactionId}`), 404);
    expectStatus(await api.get(`/transactions/${created.transactionId}`), 404);
    expectStatus(await api.get('/alt-transactions/not-a-number'), 404);
  });

  it("answers 404 for another merchant's debit", async () => {
    const created = await debit();
    const other = await stack.newMerchant();
    const reply = expectStatus(await api.get(`/alt-transactions/${created.transactionId}`, as(other)), 404);
    expect(reply.body.message[0]).toMatchObject({ errorName: 'TRANSACTION_NOT_FOUND', code: 20001 });
  });
});

describe('POST /alt-transactions (XML)', () => {
  it('reads and answers alt-transaction documents', async () => {
    const document = xmlDocument('alt-transaction', {
      sepaDirectDebitTransaction: { iban: 'NL91 ABNA 0417 1643 00' },
      payerInfo: { firstName: 'Grace', lastName: 'Hopper' },
      amount: '20.00',
      currency: 'EUR',
      authorizedByShopper: 'true',
    });
    const reply = expectStatus(await api.post('/alt-transactions', document, asAltXml), 200);
    expect(reply.headers.get('content-type')).toMatch(/application\/xml/);
    expect(reply.text).toContain('<alt-transaction xmlns="http://ws.plimus.com">');
    expect(reply.text).toContain('<amount>20.00</amount>');
    expect(reply.text).toContain('<processing-status>PENDING</processing-status>');
    expect(reply.text).toMatch(/<mandate-date>\d{2}-[A-Z][a-z]{2}-\d{2}<\/mandate-date>/);
    expect(reply.text).toContain('<pre-notification-translation-ref>');
    expect(reply.body).toMatchObject({
      payerInfo: { firstName: 'Grace', lastName: 'Hopper' },
      sepaDirectDebitTransaction: { ibanFirstFour: 'NL91', ibanLastFour: '4300' },
      processingInfo: { processingStatus: 'PENDING' },
    });
    const again = expectStatus(
      await api.get(`/alt-transactions/${reply.body.transactionId}`, {
        ...asAltXml,
        accept: 'application/xml',
      }),
      200,
    );
    expect(again.text).toBe(reply.text);
  });

  it('answers XML errors with the property', async () => {
    const document = xmlDocument('alt-transaction', {
      sepaDirectDebitTransaction: { iban: BRITISH },
      payerInfo: { firstName: 'Grace', lastName: 'Hopper' },
      amount: '20.00',
      currency: 'EUR',
      authorizedByShopper: 'true',
    });
    const reply = expectStatus(await api.post('/alt-transactions', document, { format: 'xml' }), 400);
    expect(reply.text).toContain('<code>10001</code>');
    expect(reply.text).toContain('<name>sepaDirectDebitTransaction.iban</name>');
    expect(reply.text).not.toContain(BRITISH);
  });
});

describe('validation', () => {
  const cases: Array<[string, Record<string, unknown>, string, number?]> = [
    [
      'an IBAN of the wrong length',
      { sepaDirectDebitTransaction: { iban: 'DE8937040044053201300' } },
      'sepaDirectDebitTransaction.iban',
    ],
    [
      'an IBAN failing mod-97',
      { sepaDirectDebitTransaction: { iban: 'DE88370400440532013000' } },
      'sepaDirectDebitTransaction.iban',
    ],
    [
      'an unsupported country',
      { sepaDirectDebitTransaction: { iban: BRITISH } },
      'sepaDirectDebitTransaction.iban',
    ],
    ['no IBAN', { sepaDirectDebitTransaction: {} }, 'sepaDirectDebitTransaction.iban'],
    ['no SEPA details', { sepaDirectDebitTransaction: undefined }, 'sepaDirectDebitTransaction.iban'],
    ['a currency other than EUR', { currency: 'USD' }, 'currency'],
    ['a mandate not accepted', { authorizedByShopper: false }, 'authorizedByShopper'],
    ['authorizedByShopper missing', { authorizedByShopper: undefined }, 'authorizedByShopper'],
    ['no first name', { payerInfo: { lastName: 'Lovelace' } }, 'payerInfo.firstName'],
    ['a blank last name', { payerInfo: { firstName: 'Ada', lastName: '  ' } }, 'payerInfo.lastName'],
    ['no payer', { payerInfo: undefined }, 'payerInfo'],
    ['a negative amount', { amount: -5 }, 'amount'],
    ['a zero amount', { amount: 0 }, 'amount'],
    ['a non-numeric amount', { amount: 'ten' }, 'amount'],
    ['no amount', { amount: undefined }, 'amount'],
    ['three fraction digits', { amount: '10.505' }, 'amount', 14021],
  ];

  it.each(cases)('refuses %s with 400 and the property', async (_what, overrides, property, code) => {
    const before = await db.query('select count(*)::int as n from sepa_debit');
    const reply = await api.post('/alt-transactions', sepaDebitBody(overrides));
    expectInvalid(reply, property, code ?? 10001);
    const after = await db.query('select count(*)::int as n from sepa_debit');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('says what is wrong and never echoes the IBAN', async () => {
    const length = expectInvalid(
      await api.post(
        '/alt-transactions',
        sepaDebitBody({ sepaDirectDebitTransaction: { iban: 'NL91ABNA04171643001' } }),
      ),
      'sepaDirectDebitTransaction.iban',
    );
    expect(length.description).toBe('sepaDirectDebitTransaction.iban: a NL IBAN has 18 characters, not 19');
    expect(length.invalidProperty).not.toHaveProperty('messageValue');
    const country = expectInvalid(
      await api.post('/alt-transactions', sepaDebitBody({ sepaDirectDebitTransaction: { iban: BRITISH } })),
      'sepaDirectDebitTransaction.iban',
    );
    expect(country.description).toMatch(/country GB is not supported/);
    const currency = expectInvalid(
      await api.post('/alt-transactions', sepaDebitBody({ currency: 'USD' })),
      'currency',
    );
    expect(currency).toMatchObject({
      description: 'currency: EUR only',
      invalidProperty: { messageValue: 'USD' },
    });
    // An IBAN sent in place of its object (letters among its digits, so it looks like no card number).
    const misplaced = await api.post(
      '/alt-transactions',
      sepaDebitBody({ sepaDirectDebitTransaction: 'NL91ABNA0417164300' }),
    );
    expectInvalid(misplaced, 'sepaDirectDebitTransaction');
    expect(misplaced.text).not.toContain('NL91ABNA0417164300');
  });

  it('refuses an unknown or foreign vaultedShopperId with 404', async () => {
    const reply = expectStatus(
      await api.post('/alt-transactions', sepaDebitBody({ vaultedShopperId: 1 })),
      404,
    );
    expect(reply.body.message[0]).toMatchObject({ errorName: 'SHOPPER_NOT_FOUND', code: 20002 });
    const theirs = await debit({}, await stack.newMerchant());
    expectStatus(
      await api.post('/alt-transactions', sepaDebitBody({ vaultedShopperId: theirs.vaultedShopperId })),
      404,
    );
  });

  it('refuses a merchantTransactionId used before, by a debit or by a card transaction', async () => {
    const merchantTransactionId = `sepa-${randomUUID()}`;
    await debit({ merchantTransactionId });
    expectInvalid(
      await api.post('/alt-transactions', sepaDebitBody({ merchantTransactionId })),
      'merchantTransactionId',
    );
    expectInvalid(
      await api.post('/transactions', { ...saleBody(), merchantTransactionId }),
      'merchantTransactionId',
    );
    const cardFirst = `card-${randomUUID()}`;
    expectStatus(await api.post('/transactions', { ...saleBody(), merchantTransactionId: cardFirst }), 200);
    expectInvalid(
      await api.post('/alt-transactions', sepaDebitBody({ merchantTransactionId: cardFirst })),
      'merchantTransactionId',
    );
    // Another merchant has ids of its own.
    expectStatus(
      await api.post(
        '/alt-transactions',
        sepaDebitBody({ merchantTransactionId }),
        as(await stack.newMerchant()),
      ),
      200,
    );
  });
});

describe('mandates and vaulted shoppers', () => {
  it('reuses the mandate for the same shopper and IBAN, and makes one per new pair', async () => {
    const first = await debit();
    const shopperId = first.vaultedShopperId;
    const again = await debit({
      vaultedShopperId: shopperId,
      sepaDirectDebitTransaction: { iban: 'de89 3704 0044 0532 0130 00' },
      amount: '3.00',
    });
    expect(again.vaultedShopperId).toBe(shopperId);
    expect(again.transactionId).not.toBe(first.transactionId);
    expect(again.sepaDirectDebitTransaction.mandateId).toBe(first.sepaDirectDebitTransaction.mandateId);
    expect(again.sepaDirectDebitTransaction.mandateDate).toBe(first.sepaDirectDebitTransaction.mandateDate);

    const otherIban = await debit({
      vaultedShopperId: shopperId,
      sepaDirectDebitTransaction: { iban: FRENCH },
    });
    expect(otherIban.sepaDirectDebitTransaction.mandateId).not.toBe(
      first.sepaDirectDebitTransaction.mandateId,
    );
    expect(otherIban.sepaDirectDebitTransaction).toMatchObject({
      ibanFirstFour: 'FR14',
      ibanLastFour: '2606',
    });

    const otherShopper = await debit();
    expect(otherShopper.vaultedShopperId).not.toBe(shopperId);
    expect(otherShopper.sepaDirectDebitTransaction.mandateId).not.toBe(
      first.sepaDirectDebitTransaction.mandateId,
    );

    const shopper = expectStatus(await api.get(`/vaulted-shoppers/${shopperId}`), 200).body;
    expect(shopper).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
    expect(shopper.paymentSources.sepaDirectDebitInfo).toEqual([
      {
        sepaDirectDebit: {
          ibanFirstFour: 'DE89',
          ibanLastFour: '3000',
          mandateId: first.sepaDirectDebitTransaction.mandateId,
          mandateDate: first.sepaDirectDebitTransaction.mandateDate,
        },
      },
      {
        sepaDirectDebit: {
          ibanFirstFour: 'FR14',
          ibanLastFour: '2606',
          mandateId: otherIban.sepaDirectDebitTransaction.mandateId,
          mandateDate: otherIban.sepaDirectDebitTransaction.mandateDate,
        },
      },
    ]);
    const xml = expectStatus(
      await api.get(`/vaulted-shoppers/${shopperId}`, { format: 'xml', accept: 'application/xml' }),
      200,
    );
    expect(xml.text.match(/<sepa-direct-debit-info>/g)).toHaveLength(2);
  });

  it('shares one mandate between concurrent first debits of a shopper and IBAN', async () => {
    const { vaultedShopperId } = await debit({ sepaDirectDebitTransaction: { iban: FRENCH } });
    const replies = await Promise.all(
      Array.from({ length: 6 }, () =>
        debit({ vaultedShopperId, sepaDirectDebitTransaction: { iban: DUTCH } }),
      ),
    );
    expect(new Set(replies.map((reply) => reply.sepaDirectDebitTransaction.mandateId)).size).toBe(1);
  });

  it('debits a vaulted shopper from its stored SEPA account: no IBAN repeated, the mandate reused', async () => {
    const first = await debit({ sepaDirectDebitTransaction: { iban: FRENCH } });
    const { vaultedShopperId } = first;
    const dutch = await debit({ vaultedShopperId, sepaDirectDebitTransaction: { iban: DUTCH } });

    // The original's returning-shopper request: no sepaDirectDebitTransaction, no payerInfo.
    const latest = await debit({
      vaultedShopperId,
      sepaDirectDebitTransaction: undefined,
      payerInfo: undefined,
    });
    expect(latest.sepaDirectDebitTransaction).toMatchObject({
      ibanFirstFour: 'NL91',
      ibanLastFour: '4300',
      mandateId: dutch.sepaDirectDebitTransaction.mandateId,
    });
    expect(latest.payerInfo).toEqual({ firstName: 'Ada', lastName: 'Lovelace' });
    expect(latest.processingInfo.processingStatus).toBe('PENDING');

    // The account picked by its first and last four characters, in XML as the original's clients send it.
    const xml = expectStatus(
      await api.post(
        '/alt-transactions',
        `<alt-transaction xmlns="http://ws.plimus.com"><amount>7.00</amount><currency>EUR</currency>
          <vaulted-shopper-id>${vaultedShopperId}</vaulted-shopper-id><authorized-by-shopper>true</authorized-by-shopper>
          <sepa-direct-debit-transaction><iban-first-four>FR14</iban-first-four><iban-last-four>2606</iban-last-four></sepa-direct-debit-transaction>
          <transaction-meta-data><meta-data><meta-key>k</meta-key><meta-value>v</meta-value><meta-description>d</meta-description></meta-data></transaction-meta-data>
        </alt-transaction>`,
        asAltXml,
      ),
      200,
    );
    expect(xml.body.sepaDirectDebitTransaction.mandateId).toBe(first.sepaDirectDebitTransaction.mandateId);
    expect(xml.text).toContain('<iban-last-four>2606</iban-last-four>');
    expect(xml.text).toContain(
      '<transaction-meta-data><meta-data><meta-key>k</meta-key><meta-value>v</meta-value><meta-description>d</meta-description></meta-data></transaction-meta-data>',
    );
    const rows = await db.query('select count(*)::int as n from sepa_mandate where shopper_id = $1', [
      vaultedShopperId,
    ]);
    expect(rows.rows[0].n).toBe(2);
  });

  it('refuses a stored-account debit the shopper cannot pay: 400 naming the IBAN, nothing stored', async () => {
    const sale = expectStatus(await api.post('/transactions', saleBody()), 200).body;
    const before = await db.query('select count(*)::int as n from sepa_debit');
    expectInvalid(
      await api.post(
        '/alt-transactions',
        sepaDebitBody({ vaultedShopperId: sale.vaultedShopperId, sepaDirectDebitTransaction: undefined }),
      ),
      'sepaDirectDebitTransaction.iban',
    );
    const { vaultedShopperId } = await debit();
    expectInvalid(
      await api.post(
        '/alt-transactions',
        sepaDebitBody({ vaultedShopperId, sepaDirectDebitTransaction: { ibanLastFour: '9999' } }),
      ),
      'sepaDirectDebitTransaction.iban',
    );
    const after = await db.query('select count(*)::int as n from sepa_debit');
    expect(after.rows[0].n).toBe(before.rows[0].n + 1);
  });

  it('a vaulted shopper with no mandate shows no sepaDirectDebitInfo', async () => {
    const sale = expectStatus(await api.post('/transactions', saleBody()), 200).body;
    const shopper = expectStatus(await api.get(`/vaulted-shoppers/${sale.vaultedShopperId}`), 200).body;
    expect(shopper.paymentSources).not.toHaveProperty('sepaDirectDebitInfo');
  });
});

describe('settlement by the merchant clock', () => {
  it('takes the three sandbox IBANs to SUCCESS, FAIL, and SUCCESS then REFUNDED, with their IPNs', async () => {
    const merchant = await merchantWithIpn();
    const ok = await debit({ sepaDirectDebitTransaction: { iban: SUCCEEDS } }, merchant);
    const failing = await debit({ sepaDirectDebitTransaction: { iban: FAILS }, amount: 7 }, merchant);
    const returned = await debit({ sepaDirectDebitTransaction: { iban: RETURNED }, amount: 12.34 }, merchant);

    // Not due yet: the sandbox answers after 120 s of the merchant's clock.
    await advance(merchant, 'PT1M');
    await aSettlementRun();
    for (const { transactionId } of [ok, failing, returned]) {
      expect((await getDebit(transactionId, merchant)).processingInfo.processingStatus).toBe('PENDING');
    }

    await advance(merchant, 'PT2M');
    expect((await until(ok.transactionId, 'SUCCESS', merchant)).sepaDirectDebitTransaction).toEqual(
      ok.sepaDirectDebitTransaction,
    );
    await until(failing.transactionId, 'FAIL', merchant);
    await until(returned.transactionId, 'SUCCESS', merchant);

    await advance(merchant, 'PT3M');
    await until(returned.transactionId, 'REFUNDED', merchant);
    await delay(1000);
    expect((await getDebit(ok.transactionId, merchant)).processingInfo.processingStatus).toBe('SUCCESS');
    expect((await getDebit(failing.transactionId, merchant)).processingInfo.processingStatus).toBe('FAIL');

    // IPNs: ChargePending for each, Charge with the mandate, Decline, Refund of the whole amount.
    for (const created of [ok, failing, returned]) {
      const pending = await ipn('CHARGE_PENDING', created.transactionId);
      expect(pending.get('paymentMethod')).toBe('SEPA_DIRECT_DEBIT');
      expect(pending.get('currency')).toBe('EUR');
      expect(pending.get('invoiceAmount')).toBe(created.amount.toFixed(2));
      expect(pending.get('firstName')).toBe('Ada');
      expect(pending.get('lastName')).toBe('Lovelace');
      expect(pending.get('accountId')).toBe(String(created.vaultedShopperId));
      expect(pending.get('transactionDate')).toMatch(IPN_DATE);
      expect(pending.get('testMode')).toBe('Y');
    }
    for (const created of [ok, returned]) {
      const charge = await ipn('CHARGE', created.transactionId);
      expect(charge.get('sepaMandateId')).toBe(created.sepaDirectDebitTransaction.mandateId);
      expect(charge.get('sepaMandateDate')).toBe(created.sepaDirectDebitTransaction.mandateDate);
      expect(charge.get('invoiceAmount')).toBe(created.amount.toFixed(2));
    }
    expect((await ipn('DECLINE', failing.transactionId)).get('invoiceAmount')).toBe('7.00');
    expect((await ipn('REFUND', returned.transactionId)).get('invoiceAmount')).toBe('12.34');
    await delay(500);
    const about = (id: string) =>
      receiver.requests
        .map((request) => request.params)
        .filter((params) => params.get('referenceNumber') === id);
    expect(
      about(ok.transactionId)
        .map((params) => params.get('transactionType'))
        .sort(),
    ).toEqual(['CHARGE', 'CHARGE_PENDING']);
    expect(
      about(failing.transactionId)
        .map((params) => params.get('transactionType'))
        .sort(),
    ).toEqual(['CHARGE_PENDING', 'DECLINE']);
    for (const { params } of receiver.requests) {
      for (const iban of IBANS) expect(params.toString()).not.toContain(iban);
    }
  });

  it('a long advance takes a returned debit through SUCCESS to REFUNDED in one go', async () => {
    const merchant = await merchantWithIpn();
    const returned = await debit({ sepaDirectDebitTransaction: { iban: RETURNED } }, merchant);
    await advance(merchant, 'P1D');
    await until(returned.transactionId, 'REFUNDED', merchant);
    await ipn('CHARGE', returned.transactionId);
    await ipn('REFUND', returned.transactionId);
  });

  it("moves only the advanced merchant's debits", async () => {
    const [advanced, waiting] = [await stack.newMerchant(), await stack.newMerchant()];
    const mine = await debit({}, advanced);
    const theirs = await debit({}, waiting);
    await advance(advanced, 'PT5M');
    await until(mine.transactionId, 'SUCCESS', advanced);
    await aSettlementRun();
    expect((await getDebit(theirs.transactionId, waiting)).processingInfo.processingStatus).toBe('PENDING');
  });
});

/** The original's 22 languages (its Tools API reference) and English. */
describe("the bank, asked from settlement (the payment pipeline's call phase)", () => {
  let bankStack: Stack;
  let bankApi: ReturnType<typeof client>;
  /** Every reference presented, in order, and whether its row could be locked while the bank was asked. */
  const presented: { reference: string; unlocked: boolean }[] = [];
  let unreachable = false;
  /**
   * NOWAIT fails at once on a row some transaction holds. A run presenting from inside a transaction would
   * hold the row for the whole call, which waits for this check: it never frees. Another lane's claim may
   * touch the row for an instant (a FOR UPDATE SKIP LOCKED re-checking it), so the row must free within 2 s.
   */
  const freeWhileAsked = (reference: string) =>
    waitFor(
      `debit ${reference} free of locks while presented`,
      () =>
        bankStack.db.query('select id from sepa_debit where id = $1 for update nowait', [reference]).then(
          () => true,
          () => false,
        ),
      2000,
    ).catch(() => false);
  const recordingBank: SepaBank = {
    async collect(debits) {
      for (const { reference } of debits)
        presented.push({ reference, unlocked: await freeWhileAsked(reference) });
      if (unreachable) throw new Error('the bank did not answer');
      return sandboxSepaBank.collect(debits);
    },
  };

  beforeAll(async () => {
    bankStack = await startStack({ sepaBank: recordingBank });
    bankApi = client(bankStack);
  });
  afterAll(async () => {
    await bankStack?.close();
  });

  const debitRow = async (id: string) =>
    (
      await bankStack.db.query<{ status: string; outcome: string | null; leased: boolean }>(
        'select status, outcome, presenting_until is not null as leased from sepa_debit where id = $1',
        [id],
      )
    ).rows[0];

  it('presents a debit only when it falls due, outside any transaction; a run the bank failed is taken over', async () => {
    const merchant = bankStack.merchant;
    const opened = expectStatus(
      await bankApi.post('/alt-transactions', sepaDebitBody(), as(merchant)),
      200,
    ).body;
    const id: string = opened.transactionId;
    // Opening asks no bank: the debit waits for its collection date with no outcome.
    expect(presented).toEqual([]);
    expect(await debitRow(id)).toEqual({ status: 'PENDING', outcome: null, leased: false });

    // Due, but the bank does not answer: the debit stays pending and leased to the run that asked.
    unreachable = true;
    expectStatus(await bankApi.put('/sandbox/clock', { advanceBy: 'PT5M' }, as(merchant)), 200);
    await waitFor('the debit presented', () => presented.some((p) => p.reference === id) || undefined);
    expect(presented).toEqual([{ reference: id, unlocked: true }]);
    expect(await debitRow(id)).toEqual({ status: 'PENDING', outcome: null, leased: true });

    // While leased, a later run (proved by a debit of the same merchant it collects) does not present it.
    unreachable = false;
    const control = expectStatus(
      await bankApi.post('/alt-transactions', sepaDebitBody(), as(merchant)),
      200,
    ).body;
    expectStatus(await bankApi.put('/sandbox/clock', { advanceBy: 'PT5M' }, as(merchant)), 200);
    await waitFor('the control debit collected', async () =>
      (await debitRow(control.transactionId))?.status === 'SUCCESS' ? true : undefined,
    );
    expect(presented.filter((p) => p.reference === id)).toHaveLength(1);

    // Its lease over (as after a crash), the next run presents it again and records the answer once.
    await bankStack.db.query(
      "update sepa_debit set presenting_until = now() - interval '1 second' where id = $1",
      [id],
    );
    expectStatus(await bankApi.put('/sandbox/clock', { advanceBy: 'PT1M' }, as(merchant)), 200);
    await waitFor('the debit collected', async () =>
      (await debitRow(id))?.status === 'SUCCESS' ? true : undefined,
    );
    expect(await debitRow(id)).toEqual({ status: 'SUCCESS', outcome: 'SUCCESS', leased: false });
    expect(presented.filter((p) => p.reference === id)).toEqual([
      { reference: id, unlocked: true },
      { reference: id, unlocked: true },
    ]);
  });
});

const LANGUAGES = 'en bg cs da de el es et fi fr hu it lt lv mt nl no pl pt ro sk sl sv'.split(' ');
const mandateShape = { root: 'sepa-mandate', wrapped: { translations: 'translation' } };
type Translation = { language: string; translationText: string };

describe('pre-notification translations', () => {
  it('gives translationText in all 23 languages, each naming the amount and the mandate', async () => {
    const created = await debit({ amount: '1234.50' });
    const { mandateId, preNotificationText } = created.sepaDirectDebitTransaction;
    const reply = expectStatus(
      await api.get(`/translations/sepa/prenotification?transactionid=${created.transactionId}`),
      200,
    );
    const translations: Translation[] = reply.body.translations;
    expect(translations.map((entry) => entry.language)).toEqual(LANGUAGES);
    for (const entry of translations) {
      expect(Object.keys(entry), entry.language).toEqual(['language', 'translationText']);
      expect(entry.translationText, entry.language).toContain(mandateId);
      expect(entry.translationText, entry.language).toMatch(/1234[.,]50/);
      expect(entry.translationText, entry.language).toContain('3000');
      expect(entry.translationText, entry.language).not.toContain('${');
    }
    expect(translations.find((entry) => entry.language === 'en')?.translationText).toBe(preNotificationText);
    expect(translations.find((entry) => entry.language === 'pl')?.translationText).toContain('1234,50 EUR');
    expect(new Set(translations.map((entry) => entry.translationText)).size).toBe(translations.length);
  });

  it('gives one language when asked, in JSON and XML, via the URL the debit carries', async () => {
    const created = await debit();
    const ref: string = created.sepaDirectDebitTransaction.preNotificationTranslationRef;
    const path = ref.slice(stack.baseUrl.length);
    const reply = expectStatus(await api.get(`${path}&language=de`), 200);
    expect(reply.body).toEqual({
      translations: [{ language: 'de', translationText: expect.stringContaining('10,50 EUR') }],
    });
    const xml = expectStatus(
      await api.get(`${path}&language=FR`, { accept: 'application/xml', shape: translationsShape }),
      200,
    );
    expect(xml.text).toContain(
      '<sepa-pre-notification xmlns="http://ws.plimus.com"><translations><translation><language>fr</language><translation-text>',
    );
    expect(xml.body.translations).toEqual([
      { language: 'fr', translationText: expect.stringContaining('10,50 EUR') },
    ]);
  });

  it('without a transaction gives the template with the original placeholders, JSON and XML', async () => {
    const reply = expectStatus(await api.get('/translations/sepa/prenotification?language=pl'), 200);
    const [entry] = reply.body.translations;
    expect(reply.body.translations).toHaveLength(1);
    expect(entry.language).toBe('pl');
    for (const placeholder of ['AMOUNT', 'MANDATEID', 'IBAN_PUBLIC_INFO'])
      expect(entry.translationText).toContain(`\${${placeholder}}`);
    const all = expectStatus(
      await api.get('/translations/sepa/prenotification', {
        accept: 'application/xml',
        shape: translationsShape,
      }),
      200,
    );
    expect(all.body.translations.map((item: Translation) => item.language)).toEqual(LANGUAGES);
  });

  it('refuses an unknown language with 400 and unknown or foreign transactions with 404', async () => {
    const created = await debit();
    const path = `/translations/sepa/prenotification?transactionid=${created.transactionId}`;
    expectInvalid(await api.get(`${path}&language=xx`), 'language');
    expectInvalid(await api.get(`${path}&language=english`), 'language');
    expectStatus(await api.get('/translations/sepa/prenotification?transactionid=999999999999'), 404);
    expectStatus(await api.get(`${path}`, as(await stack.newMerchant())), 404);
    const sale = expectStatus(await api.post('/transactions', saleBody()), 200).body;
    expectStatus(
      await api.get(`/translations/sepa/prenotification?transactionid=${sale.transactionId}`),
      404,
    );
  });
});

describe('mandate text', () => {
  it('gives the mandate in all 23 languages, or one, naming the creditor, JSON and XML', async () => {
    const all = expectStatus(await api.get('/translations/sepa/mandate'), 200);
    const translations: Translation[] = all.body.translations;
    expect(translations.map((entry) => entry.language)).toEqual(LANGUAGES);
    for (const entry of translations) expect(entry.translationText, entry.language).toContain('Paywire');
    expect(new Set(translations.map((entry) => entry.translationText)).size).toBe(LANGUAGES.length);
    expect(translations[0]?.translationText).toMatch(/^By signing this mandate form, you authorise/);
    expect(translations[0]?.translationText).toContain('within 8 weeks');

    const polish = expectStatus(await api.get('/translations/sepa/mandate?language=PL'), 200);
    expect(polish.body).toEqual({
      translations: [
        { language: 'pl', translationText: translations.find((e) => e.language === 'pl')?.translationText },
      ],
    });
    const xml = expectStatus(
      await api.get('/translations/sepa/mandate?language=de', {
        accept: 'application/xml',
        shape: mandateShape,
      }),
      200,
    );
    expect(xml.text).toContain(
      '<sepa-mandate xmlns="http://ws.plimus.com"><translations><translation><language>de</language><translation-text>Ich ermächtige Paywire',
    );
    expect(xml.body.translations).toEqual([translations.find((e) => e.language === 'de')]);
  });

  it('refuses an unknown language with 400 and needs credentials', async () => {
    expectInvalid(await api.get('/translations/sepa/mandate?language=xx'), 'language');
    expectStatus(await api.get('/translations/sepa/mandate', { merchant: null }), 401);
  });
});

describe('refunds of SEPA debits', () => {
  it('refunds in parts and in full through both refund endpoints, never above the amount', async () => {
    const { merchant, created } = await collectedDebit({ amount: 20 });
    const id = created.transactionId;
    expectStatus(await api.put(`/transactions/${id}/refund?amount=5`, undefined, as(merchant)), 204);
    expect((await getDebit(id, merchant)).processingInfo.processingStatus).toBe('SUCCESS');

    const partial = expectStatus(
      await api.post(`/transactions/refund/${id}`, { amount: '4.50', reason: 'damaged' }, as(merchant)),
      200,
    ).body;
    expect(partial).toMatchObject({
      transactionId: id,
      amount: 4.5,
      currency: 'EUR',
      reason: 'damaged',
      refundStatus: 'SUCCESS',
    });
    expect(partial.refundTransactionId).toMatch(/^\d+$/);

    const over = expectStatus(
      await api.post(`/transactions/refund/${id}`, { amount: 10.51 }, as(merchant)),
      400,
    );
    expect(over.body.message[0]).toMatchObject({ errorName: 'REFUND_AMOUNT_EXCEEDS_BALANCE', code: 20011 });
    expectInvalid(
      await api.put(`/transactions/${id}/refund?amount=1.005`, undefined, as(merchant)),
      'amount',
      14021,
    );

    const rest = expectStatus(
      await api.post(`/transactions/refund/${id}`, undefined, as(merchant)),
      200,
    ).body;
    expect(rest.amount).toBe(10.5);
    expect((await getDebit(id, merchant)).processingInfo.processingStatus).toBe('REFUNDED');
    const again = expectStatus(await api.put(`/transactions/${id}/refund`, undefined, as(merchant)), 400);
    expect(again.body.message[0].code).toBe(20011);

    const refunds = await db.query(
      'select amount_minor::int as a from sepa_refund where debit_id = $1 order by id',
      [id],
    );
    expect(refunds.rows.map((row) => row.a)).toEqual([500, 450, 1050]);
    const amounts = (
      await waitFor('three refund IPNs', () => {
        const found = receiver.requests
          .map((request) => request.params)
          .filter(
            (params) => params.get('transactionType') === 'REFUND' && params.get('referenceNumber') === id,
          );
        return found.length === 3 ? found : undefined;
      })
    ).map((params) => params.get('invoiceAmount'));
    expect(amounts.sort()).toEqual(['10.50', '4.50', '5.00']);
  });

  it('refunds by merchantTransactionId with the original refund fields, JSON and XML; metadata kept', async () => {
    const meta = { metaData: [{ metaKey: 'orderId', metaValue: 'A-17', metaDescription: 'Shop order' }] };
    const { merchant, created } = await collectedDebit({
      amount: 20,
      merchantTransactionId: 'sepa-order-17',
      transactionMetaData: meta,
    });
    expect(created.transactionMetaData).toEqual(meta);
    expect((await getDebit(created.transactionId, merchant)).transactionMetaData).toEqual(meta);
    const today = await clockOf(merchant);
    const date = `${String(today.getUTCMonth() + 1).padStart(2, '0')}/${String(today.getUTCDate()).padStart(2, '0')}/${today.getUTCFullYear()}`;

    const json = expectStatus(
      await api.post(
        '/transactions/refund/merchant/sepa-order-17',
        { amount: 5, taxAmount: 0.8, reason: 'late', cancelSubscriptions: false, transactionMetaData: meta },
        as(merchant),
      ),
      200,
    ).body;
    expect(json).toEqual({
      refundTransactionId: expect.stringMatching(/^\d+$/),
      transactionId: created.transactionId,
      amount: 5,
      taxAmount: 0.8,
      currency: 'EUR',
      date,
      reason: 'late',
      cancelSubscriptions: false,
      transactionMetaData: meta,
      refundStatus: 'SUCCESS',
    });
    const xml = expectStatus(
      await api.post(
        '/transactions/refund/merchant/sepa-order-17',
        '<refund xmlns="http://ws.plimus.com"><amount>2.00</amount><tax-amount>0.30</tax-amount><cancel-subscriptions>true</cancel-subscriptions></refund>',
        { ...as(merchant), format: 'xml', shape: { root: 'refund', repeated: ['metaData'] } },
      ),
      200,
    );
    expect(Number(xml.body.taxAmount)).toBe(0.3);
    expect(xml.text).toContain(`<date>${date}</date>`);
    expect(xml.body).toMatchObject({ amount: '2.00', cancelSubscriptions: 'true' });
    expect(xml.body.transactionId).toBeUndefined(); // the schema's refund has no transaction-id
    const rows = await db.query(
      `select amount_minor::int as a, tax_amount_minor::int as t, cancel_subscriptions as c, transaction_meta_data as m
       from sepa_refund where debit_id = $1 order by id`,
      [created.transactionId],
    );
    expect(rows.rows).toEqual([
      { a: 500, t: 80, c: false, m: meta },
      { a: 200, t: 30, c: true, m: null },
    ]);
    expectStatus(await api.post('/transactions/refund/merchant/no-such-order', {}, as(merchant)), 404);
  });

  it('refuses to refund a pending or failed debit, or another merchant’s', async () => {
    const pending = await debit();
    const reply = expectStatus(await api.put(`/transactions/${pending.transactionId}/refund`), 400);
    expect(reply.body.message[0]).toMatchObject({ code: 20011 });
    expect(reply.body.message[0].description).toMatch(/PENDING/);

    const merchant = await stack.newMerchant();
    const failing = await debit({ sepaDirectDebitTransaction: { iban: FAILS } }, merchant);
    await advance(merchant, 'PT3M');
    await until(failing.transactionId, 'FAIL', merchant);
    expectStatus(await api.post(`/transactions/refund/${failing.transactionId}`, {}, as(merchant)), 400);

    expectStatus(await api.put(`/transactions/${failing.transactionId}/refund`), 404);
  });

  it('a bank return after a partial refund returns only the rest', async () => {
    const { merchant, created } = await collectedDebit({
      sepaDirectDebitTransaction: { iban: RETURNED },
      amount: 30,
    });
    expectStatus(
      await api.put(`/transactions/${created.transactionId}/refund?amount=10`, undefined, as(merchant)),
      204,
    );
    await advance(merchant, 'PT3M');
    await until(created.transactionId, 'REFUNDED', merchant);
    const refunds = await db.query(
      'select amount_minor::int as a, returned from sepa_refund where debit_id = $1 order by id',
      [created.transactionId],
    );
    expect(refunds.rows).toEqual([
      { a: 1000, returned: false },
      { a: 2000, returned: true },
    ]);
  });

  it('a fully refunded returnable debit is not returned again', async () => {
    const { merchant, created } = await collectedDebit({ sepaDirectDebitTransaction: { iban: RETURNED } });
    expectStatus(await api.post(`/transactions/refund/${created.transactionId}`, {}, as(merchant)), 200);
    await advance(merchant, 'PT10M');
    await aSettlementRun();
    const refunds = await db.query('select count(*)::int as n from sepa_refund where debit_id = $1', [
      created.transactionId,
    ]);
    expect(refunds.rows[0].n).toBe(1);
  });

  it('card refunds still work through the same endpoints', async () => {
    const sale = expectStatus(await api.post('/transactions', saleBody()), 200).body;
    expectStatus(await api.put(`/transactions/${sale.transactionId}/refund?amount=5`), 204);
    const rest = expectStatus(await api.post(`/transactions/refund/${sale.transactionId}`), 200).body;
    expect(rest.amount).toBe(20.5);
    expectStatus(await api.put('/transactions/999999999999/refund'), 404);
  });
});

describe('idempotent retries', () => {
  it('replays the same debit for the same Idempotency-Key and body', async () => {
    const key = randomUUID();
    const body = sepaDebitBody({ amount: 42 });
    const first = expectStatus(
      await api.post('/alt-transactions', body, { headers: { 'Idempotency-Key': key } }),
      200,
    );
    const second = expectStatus(
      await api.post('/alt-transactions', body, { headers: { 'Idempotency-Key': key } }),
      200,
    );
    expect(second.body.transactionId).toBe(first.body.transactionId);
    expect(second.text).toBe(first.text);
    const rows = await db.query('select count(*)::int as n from sepa_debit where amount_minor = 4200');
    expect(rows.rows[0].n).toBe(1);
    const changed = await api.post('/alt-transactions', sepaDebitBody({ amount: 43 }), {
      headers: { 'Idempotency-Key': key },
    });
    expect(changed.status).toBe(422);
  });
});

describe('secrecy of the IBAN', () => {
  it('keeps no IBAN in plain text at rest, in responses stored for replays, or in any log', async () => {
    const tables = [
      'sepa_mandate',
      'sepa_debit',
      'sepa_refund',
      'shopper',
      'idempotency_record',
      'ipn_delivery',
    ];
    for (const table of tables) {
      const { rows } = await db.query(`select * from ${table}`);
      const dump = JSON.stringify(rows);
      for (const iban of IBANS) expect(dump, table).not.toContain(iban);
    }
    const mandates = await db.query('select sealed_iban from sepa_mandate');
    expect(mandates.rows.length).toBeGreaterThan(0);
    for (const row of mandates.rows) expect(row.sealed_iban).toMatch(/^v2:\d+:/);
    const everything = [...stack.logs, ...stdout.printed].join('\n');
    expect(stack.logs.length).toBeGreaterThan(0);
    for (const iban of IBANS) expect(everything).not.toContain(iban);
  });
});

describe('live mode', () => {
  let core: RunningCore;
  let facade: TestFacade;

  beforeAll(async () => {
    core = await startCore({
      databaseUrl: stack.databaseUrl,
      port: 0,
      mode: 'live',
      cardEncryptionKey: stack.coreOptions.cardEncryptionKey, // the database's keys were wrapped under it
      poolSize: 4,
    });
    facade = await startFacade(core.url, stack.facadeCredential);
  });

  afterAll(async () => {
    await facade?.close();
    await core?.close();
  });

  /** 5 TARGET business days later, computed here independently of the service. */
  function fiveBusinessDaysAfter(start: Date): Date {
    const easter: Record<number, string> = {
      2025: '04-20',
      2026: '04-05',
      2027: '03-28',
      2028: '04-16',
      2029: '04-01',
      2030: '04-21',
    };
    const closed = (date: Date) => {
      const md = date.toISOString().slice(5, 10);
      const sunday = new Date(
        `${date.getUTCFullYear()}-${easter[date.getUTCFullYear()]}T00:00:00Z`,
      ).getTime();
      const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
      return (
        date.getUTCDay() === 0 ||
        date.getUTCDay() === 6 ||
        ['01-01', '05-01', '12-25', '12-26'].includes(md) ||
        midnight === sunday - 2 * 86_400_000 ||
        midnight === sunday + 86_400_000
      );
    };
    let date = start;
    for (let counted = 0; counted < 5; ) {
      date = new Date(date.getTime() + 86_400_000);
      if (!closed(date)) counted += 1;
    }
    return date;
  }

  it('collects after 5 TARGET business days: the pre-notification names that date', async () => {
    const merchant = await stack.newMerchant();
    const started = new Date();
    const response = await fetch(`${facade.baseUrl}/alt-transactions`, {
      method: 'POST',
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      body: JSON.stringify(sepaDebitBody()),
    });
    expect(response.status).toBe(200);
    const created = (await response.json()) as {
      sepaDirectDebitTransaction: { preNotificationText: string };
    };
    const expected = [fiveBusinessDaysAfter(started), fiveBusinessDaysAfter(new Date())].map(shortDate);
    const date = /on or after (\d{2}-[A-Z][a-z]{2}-\d{2})/.exec(
      created.sepaDirectDebitTransaction.preNotificationText,
    )?.[1];
    expect(expected).toContain(date);
    const clock = await fetch(`${facade.baseUrl}/sandbox/clock`, {
      headers: { authorization: merchant.authorization },
    });
    expect(clock.status).toBe(404);
  });
});
