import nacha from '@midlandsbank/node-nacha';
import { achReturnError } from '@paywire/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AchBank,
  sandboxAchAccount,
  sandboxAchAccounts,
  sandboxAchBank,
} from '../../apps/core/src/ach/bank.ts';
import { deliveredIpn, merchantWithDebitIpn } from '../support/debits.ts';
import { as, client, expectStatus, saleBody, xmlDocument } from '../support/http.ts';
import { type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { createPlan } from '../support/recurring.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// ECP/ACH (docs/ach.md) over real HTTP, real PostgreSQL, real XML: debits by alt-transaction and from a
// vaulted shopper's account, settled by core's own workers on the merchant's clock in NACHA files the test
// reads back, returns, failures and IPNs at a real receiver; bad accounts refused with nothing stored.
// ---------------------------------------------------------------------------------------------------------

/** Valid by the ABA check: the Federal Reserve Bank of Boston's, and JPMorgan Chase's. */
const ROUTING = '011000015';
const OTHER_ROUTING = '021000021';
const ACCOUNT = '1234567890';
/** Every account number this file sends: none may come back whole. */
const ACCOUNTS = [ACCOUNT, '5566778899', sandboxAchAccounts.fails, sandboxAchAccounts.returned];

const altShape = { root: 'alt-transaction' };
const shopperShape = { root: 'vaulted-shopper', repeated: ['creditCardInfo', 'sepaDirectDebitInfo'] };

let stack: Stack;
let api: ReturnType<typeof client>;
let receiver: IpnReceiver;
/** Every NACHA file the bank was sent. */
const files: string[] = [];
const recordingBank: AchBank = {
  submit: (file) => {
    files.push(file);
    return sandboxAchBank.submit(file);
  },
};

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack({ achBank: recordingBank }), startIpnReceiver()]);
  api = client(stack);
});

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

function achBody(overrides: Record<string, unknown> = {}) {
  return {
    ecpTransaction: { accountNumber: ACCOUNT, routingNumber: ROUTING, accountType: 'CONSUMER_CHECKING' },
    payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
    amount: 25.5,
    currency: 'USD',
    authorizedByShopper: true,
    ...overrides,
  };
}

const merchantWithIpn = () => merchantWithDebitIpn(stack, api, receiver);

async function advance(merchant: TestMerchant, advanceBy: string) {
  expectStatus(await api.put('/sandbox/clock', { advanceBy }, as(merchant)), 200);
}

/** Waits until the debit shows the status (the clock's advance kicks settlement). */
const until = (id: string, status: string, merchant: TestMerchant) =>
  waitFor(`debit ${id} ${status}`, async () => {
    const body = expectStatus(await api.get(`/alt-transactions/${id}`, as(merchant)), 200).body;
    return body.processingInfo.processingStatus === status && body;
  });

const ipn = (transactionType: string, referenceNumber: string) =>
  deliveredIpn(receiver, transactionType, referenceNumber);

/** The NACHA file and entry that carried the debit (its id is the entry's Individual Identification Number). */
function nachaEntryOf(transactionId: string) {
  for (const file of files) {
    const data = nacha.from(file).data;
    for (const batch of data.batches) {
      const entry = batch.entries.find((record) => record.identificationNumber.trim() === transactionId);
      if (entry) return { file, data, batch, entry };
    }
  }
  throw new Error(`no NACHA file carried debit ${transactionId}`);
}

/** POST /vaulted-shoppers of Grace Hopper with one ECP account (JSON). */
const vaultShopperWithAccount = (merchant: TestMerchant, ecp: Record<string, string>) =>
  api.post(
    '/vaulted-shoppers',
    { firstName: 'Grace', lastName: 'Hopper', paymentSources: { ecpInfo: { ecp } } },
    as(merchant),
  );

function expectNoAccountNumber(text: string) {
  for (const account of ACCOUNTS) expect(text).not.toContain(account);
}

async function storedRows(merchant: TestMerchant) {
  const { rows } = await stack.db.query(
    `select (select count(*) from shopper where merchant_id = $1)::int as shoppers,
            (select count(*) from sepa_mandate where merchant_id = $1)::int as accounts,
            (select count(*) from sepa_debit where merchant_id = $1)::int as debits`,
    [merchant.id],
  );
  return rows[0];
}

describe('ECP debit by alt-transaction (JSON)', () => {
  it('is PENDING, then collected in a NACHA file when due by the merchant clock, with its IPNs', async () => {
    const merchant = await merchantWithIpn();
    const reply = expectStatus(await api.post('/alt-transactions', achBody(), as(merchant)), 200);
    expectNoAccountNumber(reply.text);
    const created = reply.body;
    expect(created).toMatchObject({
      amount: 25.5,
      currency: 'USD',
      payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
      authorizedByShopper: true,
      ecpTransaction: {
        accountType: 'CONSUMER_CHECKING',
        publicAccountNumber: '*****7890',
        publicRoutingNumber: '*****0015',
      },
      processingInfo: { processingStatus: 'PENDING' },
    });
    expect(created.sepaDirectDebitTransaction).toBeUndefined();
    const id: string = created.transactionId;
    const pending = await ipn('CHARGE_PENDING', id);
    expect(pending.get('paymentMethod')).toBe('ECP');
    expect(pending.get('invoiceAmount')).toBe('25.50');
    expect(pending.get('currency')).toBe('USD');

    // Not due yet: the sandbox bank answers 120 s after submission, by the merchant's clock.
    expect(files.some((file) => file.includes(ACCOUNT))).toBe(false);
    await advance(merchant, 'PT3M');
    await until(id, 'SUCCESS', merchant);
    const charge = await ipn('CHARGE', id);
    expect(charge.get('paymentMethod')).toBe('ECP');
    expect(charge.get('ecpAccountType')).toBe('CONSUMER_CHECKING');
    expect(charge.get('ecpAccountLastFour')).toBe('7890');
    expectNoAccountNumber(charge.toString());

    const { file, data, batch, entry } = nachaEntryOf(id);
    expect(entry).toMatchObject({ transactionCode: '27', dfiAccount: ACCOUNT, amount: 2550 });
    expect(`${String(entry.receivingDFIIdentification).padStart(8, '0')}${entry.checkDigit}`).toBe(ROUTING);
    expect(entry.receivingCompanyName.trim()).toBe('ADA LOVELACE');
    expect(batch.entryClassCode).toBe('WEB');
    const records = file.split('\n').filter(Boolean);
    expect(records.every((record) => record.length === 94)).toBe(true);
    expect(records.length % 10).toBe(0);
    // The controls: counts, entry hash (sum of the RDFI identifications) and debit totals.
    const entries = data.batches.flatMap((each) => each.entries);
    expect(data.file.footer.batchCount).toBe(data.batches.length);
    expect(data.file.footer.entryAndAddendaCount).toBe(entries.length);
    expect(data.file.footer.entryHash).toBe(
      entries.reduce((sum, each) => sum + each.receivingDFIIdentification, 0) % 10_000_000_000,
    );
    expect(data.file.footer.totalDebit).toBe(entries.reduce((sum, each) => sum + Number(each.amount), 0));
    expect(data.file.footer.totalCredit).toBe(0);
    expect(batch.footer.entryAndAddendaCount).toBe(batch.entries.length);

    // A run presents a debit once: it is in one file only.
    expect(
      files.filter((each) =>
        nacha
          .from(each)
          .data.batches.some((b) => b.entries.some((e) => e.identificationNumber.trim() === id)),
      ),
    ).toHaveLength(1);
  });

  it('has no SEPA pre-notification', async () => {
    const created = expectStatus(await api.post('/alt-transactions', achBody()), 200).body;
    const reply = await api.get(`/translations/sepa/prenotification?transactionid=${created.transactionId}`);
    expectStatus(reply, 404);
  });

  it('a debit of the failing test account ends in FAIL with a Decline', async () => {
    const merchant = await merchantWithIpn();
    const created = expectStatus(
      await api.post(
        '/alt-transactions',
        achBody({
          ecpTransaction: {
            accountNumber: sandboxAchAccounts.fails,
            routingNumber: OTHER_ROUTING,
            accountType: 'CORPORATE_SAVINGS',
          },
        }),
        as(merchant),
      ),
      200,
    ).body;
    await advance(merchant, 'PT3M');
    await until(created.transactionId, 'FAIL', merchant);
    const decline = await ipn('DECLINE', created.transactionId);
    expect(decline.get('paymentMethod')).toBe('ECP');
    expect(decline.get('declineReason')).toBe('R03');
    expect(nachaEntryOf(created.transactionId).entry.transactionCode).toBe('37'); // a savings debit
  });

  it('a debit of the returned test account is collected, then returned and refunded with a Refund', async () => {
    const merchant = await merchantWithIpn();
    const created = expectStatus(
      await api.post(
        '/alt-transactions',
        achBody({
          amount: '40.00',
          ecpTransaction: {
            accountNumber: sandboxAchAccounts.returned,
            routingNumber: ROUTING,
            accountType: 'CONSUMER_SAVINGS',
          },
        }),
        as(merchant),
      ),
      200,
    ).body;
    const id: string = created.transactionId;
    await advance(merchant, 'PT3M');
    await until(id, 'SUCCESS', merchant);
    await ipn('CHARGE', id);
    await advance(merchant, 'PT3M');
    await until(id, 'REFUNDED', merchant);
    const refund = await ipn('REFUND', id);
    expect(refund.get('invoiceAmount')).toBe('40.00');
    expect(refund.get('reversalReason')).toBe('R01');
    const { rows } = await stack.db.query(
      'select amount_minor::int as amount, returned from sepa_refund where debit_id = $1',
      [id],
    );
    expect(rows).toEqual([{ amount: 4000, returned: true }]);
  });
});

describe('ECP from a vaulted shopper (XML)', () => {
  it('stores ecpInfo, shows it masked, and debits it by its public account number', async () => {
    const merchant = await merchantWithIpn();
    const shopperDocument = xmlDocument('vaulted-shopper', {
      firstName: 'Grace',
      lastName: 'Hopper',
      paymentSources: {
        ecpInfo: {
          ecp: {
            accountNumber: '5566778899',
            routingNumber: OTHER_ROUTING,
            accountType: 'CORPORATE_CHECKING',
          },
        },
      },
    });
    const shopperReply = expectStatus(
      await api.post('/vaulted-shoppers', shopperDocument, {
        ...as(merchant),
        format: 'xml',
        shape: shopperShape,
      }),
      200,
    );
    expectNoAccountNumber(shopperReply.text);
    expect(shopperReply.text).toContain(
      '<ecp-info><ecp><account-type>CORPORATE_CHECKING</account-type><public-account-number>*****8899</public-account-number><public-routing-number>*****0021</public-routing-number></ecp></ecp-info>',
    );
    const shopperId = shopperReply.body.vaultedShopperId;
    const json = expectStatus(await api.get(`/vaulted-shoppers/${shopperId}`, as(merchant)), 200).body;
    expect(json.paymentSources.ecpInfo).toEqual({
      ecp: {
        accountType: 'CORPORATE_CHECKING',
        publicAccountNumber: '*****8899',
        publicRoutingNumber: '*****0021',
      },
    });

    const debitDocument = xmlDocument('alt-transaction', {
      vaultedShopperId: shopperId,
      ecpTransaction: { publicAccountNumber: '*****8899' },
      amount: '12.34',
      currency: 'USD',
      authorizedByShopper: 'true',
    });
    const reply = expectStatus(
      await api.post('/alt-transactions', debitDocument, { ...as(merchant), format: 'xml', shape: altShape }),
      200,
    );
    expectNoAccountNumber(reply.text);
    expect(reply.text).toContain(
      '<ecp-transaction><account-type>CORPORATE_CHECKING</account-type><public-account-number>*****8899</public-account-number><public-routing-number>*****0021</public-routing-number></ecp-transaction>',
    );
    expect(reply.body).toMatchObject({
      vaultedShopperId: String(shopperId),
      payerInfo: { firstName: 'Grace', lastName: 'Hopper' },
      processingInfo: { processingStatus: 'PENDING' },
    });
    const id: string = reply.body.transactionId;
    await advance(merchant, 'PT3M');
    await until(id, 'SUCCESS', merchant);
    const answer = expectStatus(
      await api.get(`/alt-transactions/${id}`, {
        ...as(merchant),
        format: 'xml',
        accept: 'application/xml',
        shape: altShape,
      }),
      200,
    );
    expect(answer.text).toContain('<processing-status>SUCCESS</processing-status>');
    const { entry } = nachaEntryOf(id);
    expect(entry).toMatchObject({ dfiAccount: '5566778899', amount: 1234, transactionCode: '27' });
    await ipn('CHARGE', id);
    // One account, kept once: the debit reused the shopper's.
    expect((await storedRows(merchant)).accounts).toBe(1);

    // The merchant refunds part of a collected debit through the card refund path, as for SEPA.
    const refund = expectStatus(
      await api.post(`/transactions/refund/${id}`, { amount: '2.34', reason: 'partial' }, as(merchant)),
      200,
    ).body;
    expect(refund).toMatchObject({ transactionId: id, amount: 2.34, currency: 'USD' });
    expect((await ipn('REFUND', id)).get('invoiceAmount')).toBe('2.34');
    expectStatus(await api.post(`/transactions/refund/${id}`, { amount: '10.01' }, as(merchant)), 400);
  });

  it('a vaulted shopper without an ECP account cannot be debited by ECP', async () => {
    const merchant = await stack.newMerchant();
    const shopper = expectStatus(
      await api.post('/vaulted-shoppers', { firstName: 'No', lastName: 'Account' }, as(merchant)),
      200,
    ).body;
    const before = await storedRows(merchant);
    const reply = expectStatus(
      await api.post(
        '/alt-transactions',
        {
          vaultedShopperId: shopper.vaultedShopperId,
          ecpTransaction: {},
          amount: 5,
          currency: 'USD',
          authorizedByShopper: true,
        },
        as(merchant),
      ),
      400,
    );
    expect(reply.body.message[0]).toMatchObject({
      code: 10001,
      invalidProperty: { name: 'ecpTransaction.accountNumber' },
    });
    expect(await storedRows(merchant)).toEqual(before);
  });
});

describe('bad accounts are refused with nothing stored', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      'a routing number failing the ABA check',
      { routingNumber: '011000016' },
      'ecpTransaction.routingNumber',
    ],
    ['a routing number of 8 digits', { routingNumber: '01100001' }, 'ecpTransaction.routingNumber'],
    ['an account number with letters', { accountNumber: '12345X789' }, 'ecpTransaction.accountNumber'],
    ['an account number of 3 digits', { accountNumber: '123' }, 'ecpTransaction.accountNumber'],
    [
      'an account number of 18 digits',
      { accountNumber: '123456789012345678' },
      'ecpTransaction.accountNumber',
    ],
    ['an unknown account type', { accountType: 'BUSINESS_CHECKING' }, 'ecpTransaction.accountType'],
    ['no account type', { accountType: undefined }, 'ecpTransaction.accountType'],
  ];
  for (const [name, account, property] of cases) {
    it(`refuses ${name} (JSON)`, async () => {
      const merchant = await stack.newMerchant();
      const body = achBody({
        ecpTransaction: {
          accountNumber: ACCOUNT,
          routingNumber: ROUTING,
          accountType: 'CONSUMER_CHECKING',
          ...account,
        },
      });
      const reply = expectStatus(await api.post('/alt-transactions', body, as(merchant)), 400);
      expect(reply.body.message[0]).toMatchObject({
        errorName: 'VALIDATION_GENERAL_FAILURE',
        code: 10001,
        invalidProperty: { name: property },
      });
      expectNoAccountNumber(reply.text);
      expect(await storedRows(merchant)).toEqual({ shoppers: 0, accounts: 0, debits: 0 });
    });
  }

  it('refuses euros for ECP', async () => {
    const reply = expectStatus(await api.post('/alt-transactions', achBody({ currency: 'EUR' })), 400);
    expect(reply.body.message[0]).toMatchObject({ code: 10001, invalidProperty: { name: 'currency' } });
  });

  it('refuses a bad routing number in XML, and a vaulted shopper with a bad ecpInfo', async () => {
    const merchant = await stack.newMerchant();
    const document = xmlDocument('alt-transaction', {
      ecpTransaction: {
        accountNumber: ACCOUNT,
        routingNumber: '123456789',
        accountType: 'CONSUMER_CHECKING',
      },
      payerInfo: { firstName: 'Grace', lastName: 'Hopper' },
      amount: '20.00',
      currency: 'USD',
      authorizedByShopper: 'true',
    });
    const reply = expectStatus(
      await api.post('/alt-transactions', document, { ...as(merchant), format: 'xml' }),
      400,
    );
    expect(reply.text).toContain('<code>10001</code>');
    expect(reply.text).toContain('<name>ecpTransaction.routingNumber</name>');
    expectNoAccountNumber(reply.text);
    const shopper = expectStatus(
      await vaultShopperWithAccount(merchant, {
        accountNumber: ACCOUNT,
        routingNumber: '011000016',
        accountType: 'CONSUMER_CHECKING',
      }),
      400,
    );
    expect(shopper.body.message[0]).toMatchObject({
      code: 10001,
      invalidProperty: { name: 'paymentSources.ecpInfo.ecp.routingNumber' },
    });
    expect(await storedRows(merchant)).toEqual({ shoppers: 0, accounts: 0, debits: 0 });
  });

  it('keeps account numbers sealed at rest', async () => {
    const { rows } = await stack.db.query<{ sealed_iban: string }>(
      "select sealed_iban from sepa_mandate where scheme = 'ACH'",
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expectNoAccountNumber(row.sealed_iban);
  });
});

describe('ECP subscriptions (docs/ach.md, Subscriptions)', () => {
  const ecpSource = (account = ACCOUNT) => ({
    ecpInfo: { ecp: { accountNumber: account, routingNumber: ROUTING, accountType: 'CONSUMER_CHECKING' } },
  });
  const payerInfo = { firstName: 'Ada', lastName: 'Lovelace', country: 'us', zip: '02139' };

  async function subscriptionRows(merchant: TestMerchant) {
    const { rows } = await stack.db.query(
      'select count(*)::int as n from subscription where merchant_id = $1',
      [merchant.id],
    );
    return { ...(await storedRows(merchant)), subscriptions: rows[0].n };
  }

  /** The subscription's charge of `period` once CHARGED, with its debit. */
  const chargedPeriod = (subscriptionId: number, period: number) =>
    waitFor(`subscription ${subscriptionId} period ${period} charged`, async () => {
      const { rows } = await stack.db.query<{ sepa_debit_id: string }>(
        `select sepa_debit_id::text from subscription_charge
         where subscription_id = $1 and period = $2 and status = 'CHARGED'`,
        [subscriptionId, period],
      );
      return rows[0]?.sepa_debit_id;
    });

  /** Advances the merchant's clock past the debit's collection and waits for it to be collected. */
  async function untilCollected(merchant: TestMerchant, id: string): Promise<string> {
    await advance(merchant, 'PT3M');
    await until(id, 'SUCCESS', merchant);
    return id;
  }

  it('debits the account for the first charge and each renewal, with their IPNs (JSON)', async () => {
    const merchant = await merchantWithDebitIpn(stack, api, receiver, ['Recurring', 'SubscriptionReminder']);
    const planId = await createPlan(api, merchant, { recurringChargeAmount: 19.99 });
    const created = expectStatus(
      await api.post(
        '/recurring/subscriptions',
        { planId, payerInfo, paymentSource: ecpSource(), authorizedByShopper: true },
        as(merchant),
      ),
      200,
    );
    expectNoAccountNumber(created.text);
    const subscription = created.body;
    const ecp = {
      accountType: 'CONSUMER_CHECKING',
      publicAccountNumber: '*****7890',
      publicRoutingNumber: '*****0015',
    };
    expect(subscription).toMatchObject({
      status: 'ACTIVE',
      currency: 'USD',
      paymentSource: { ecpInfo: { ecp } },
      charge: {
        amount: 19.99,
        currency: 'USD',
        paymentSource: { ecpInfo: { ecp } },
        processingInfo: { processingStatus: 'pending' },
      },
    });
    expect(subscription.paymentSource.sepaDirectDebitInfo).toBeUndefined();
    const first: string = subscription.charge.transactionId;
    expect(expectStatus(await api.get(`/alt-transactions/${first}`, as(merchant)), 200).body).toMatchObject({
      amount: 19.99,
      currency: 'USD',
      ecpTransaction: ecp,
      vaultedShopperId: subscription.vaultedShopperId,
    });
    expect((await ipn('CHARGE_PENDING', first)).get('paymentMethod')).toBe('ECP');
    await advance(merchant, 'PT3M');
    await until(first, 'SUCCESS', merchant);
    expect(nachaEntryOf(first).entry).toMatchObject({
      dfiAccount: ACCOUNT,
      amount: 1999,
      transactionCode: '27',
    });
    const charges = expectStatus(
      await api.get(`/recurring/subscriptions/${subscription.subscriptionId}/charges`, as(merchant)),
      200,
    ).body.charges;
    expect(charges[0]).toMatchObject({
      transactionId: first,
      processingInfo: { processingStatus: 'success' },
    });

    // The renewal a month later is an ACH debit of the same account, collected in a NACHA file.
    await advance(merchant, 'P32D');
    const renewal = await chargedPeriod(subscription.subscriptionId, 1);
    expect(renewal).not.toBe(first);
    await advance(merchant, 'PT3M');
    await until(renewal, 'SUCCESS', merchant);
    const recurring = await ipn('RECURRING', renewal);
    expect(Object.fromEntries(recurring)).toMatchObject({
      subscriptionId: String(subscription.subscriptionId),
      paymentMethod: 'ECP',
      ecpAccountType: 'CONSUMER_CHECKING',
      ecpAccountLastFour: '7890',
      invoiceAmount: '19.99',
      currency: 'USD',
    });
    expectNoAccountNumber(recurring.toString());
    expect(nachaEntryOf(renewal).entry).toMatchObject({ dfiAccount: ACCOUNT, amount: 1999 });
    // ACH debits are not pre-notified: no SEPA reminder, no pre-notification.
    expect(
      receiver.requests.filter(
        ({ params }) =>
          params.get('transactionType') === 'SUBSCRIPTION_REMINDER' &&
          params.get('subscriptionId') === String(subscription.subscriptionId),
      ),
    ).toEqual([]);
    const notice = await api.get(
      `/translations/sepa/prenotification?subscriptionid=${subscription.subscriptionId}`,
      as(merchant),
    );
    expect(expectStatus(notice, 400).body.message[0]).toMatchObject({
      invalidProperty: { name: 'subscriptionId' },
    });
    // One account, one mandate: the renewal reused it.
    expect((await storedRows(merchant)).accounts).toBe(1);
  });

  it('pays from a vaulted shopper’s stored ECP account, in XML', async () => {
    const merchant = await merchantWithIpn();
    const shopperId = expectStatus(
      await vaultShopperWithAccount(merchant, {
        accountNumber: '5566778899',
        routingNumber: OTHER_ROUTING,
        accountType: 'CONSUMER_SAVINGS',
      }),
      200,
    ).body.vaultedShopperId;
    const planId = await createPlan(api, merchant, { recurringChargeAmount: 7 });
    const shape = { root: 'recurring-subscription' };
    const document = xmlDocument('recurring-subscription', {
      planId,
      vaultedShopperId: shopperId,
      paymentSource: { ecpInfo: { ecp: { publicAccountNumber: '*****8899' } } },
      authorizedByShopper: 'true',
    });
    const reply = expectStatus(
      await api.post('/recurring/subscriptions', document, as(merchant, { format: 'xml', shape })),
      200,
    );
    expectNoAccountNumber(reply.text);
    const ecpXml =
      '<ecp-info><ecp><account-type>CONSUMER_SAVINGS</account-type><public-account-number>*****8899</public-account-number><public-routing-number>*****0021</public-routing-number></ecp></ecp-info>';
    expect(reply.text).toContain(`<payment-source>${ecpXml}</payment-source>`);
    const id = reply.body.subscriptionId;
    const debitId: string = reply.body.charge.transactionId;
    expect(reply.body.charge.processingInfo.processingStatus).toBe('pending');
    // Named by nothing, a vaulted shopper whose only account is ECP pays from it too.
    const plain = expectStatus(
      await api.post('/recurring/subscriptions', { planId, vaultedShopperId: shopperId }, as(merchant)),
      200,
    ).body;
    expect(plain.paymentSource.ecpInfo.ecp.publicAccountNumber).toBe('*****8899');
    expect((await storedRows(merchant)).accounts).toBe(1);

    const shown = expectStatus(
      await api.get(`/recurring/subscriptions/${id}`, as(merchant, { accept: 'application/xml', shape })),
      200,
    );
    expect(shown.text).toContain(ecpXml);
    await advance(merchant, 'PT3M');
    await until(debitId, 'SUCCESS', merchant);
    expect(nachaEntryOf(debitId).entry).toMatchObject({
      dfiAccount: '5566778899',
      amount: 700,
      transactionCode: '37',
    });
  });

  it('a merchant-managed subscription charges the account, and a card subscription moves to it', async () => {
    const merchant = await merchantWithIpn();
    const ondemand = expectStatus(
      await api.post(
        '/recurring/ondemand',
        { amount: 4.2, currency: 'USD', payerInfo, paymentSource: ecpSource(), authorizedByShopper: true },
        as(merchant),
      ),
      200,
    ).body;
    expect(ondemand).toMatchObject({
      amount: 4.2,
      currency: 'USD',
      paymentSource: { ecpInfo: { ecp: { publicAccountNumber: '*****7890' } } },
      processingInfo: { processingStatus: 'pending' },
    });
    expect(nachaEntryOf(await untilCollected(merchant, ondemand.transactionId)).entry).toMatchObject({
      dfiAccount: ACCOUNT,
      amount: 420,
    });
    const euros = await api.post(
      '/recurring/ondemand',
      { amount: 4.2, currency: 'EUR', payerInfo, paymentSource: ecpSource(), authorizedByShopper: true },
      as(merchant),
    );
    expect(expectStatus(euros, 400).body.message[0]).toMatchObject({ invalidProperty: { name: 'currency' } });

    const planId = await createPlan(api, merchant);
    const byCard = expectStatus(
      await api.post(
        '/recurring/subscriptions',
        { planId, payerInfo, paymentSource: { creditCardInfo: { creditCard: saleBody().creditCard } } },
        as(merchant),
      ),
      200,
    ).body;
    const moved = expectStatus(
      await api.put(
        `/recurring/subscriptions/${byCard.subscriptionId}`,
        { paymentSource: ecpSource('5566778899'), authorizedByShopper: true },
        as(merchant),
      ),
      200,
    ).body;
    expect(moved.paymentSource).toEqual({
      ecpInfo: {
        ecp: {
          accountType: 'CONSUMER_CHECKING',
          publicAccountNumber: '*****8899',
          publicRoutingNumber: '*****0015',
        },
      },
    });
    await advance(merchant, 'P32D');
    const renewal = await chargedPeriod(byCard.subscriptionId, 1);
    expect(nachaEntryOf(await untilCollected(merchant, renewal)).entry).toMatchObject({
      dfiAccount: '5566778899',
      amount: 999,
    });
  });

  it('refuses bad ECP sources with the reference’s errors, and stores nothing', async () => {
    const merchant = await stack.newMerchant();
    const planId = await createPlan(api, merchant);
    const euroPlan = await createPlan(api, merchant, { currency: 'EUR' });
    const otherShopper = expectStatus(
      await api.post('/vaulted-shoppers', { firstName: 'No', lastName: 'Account' }, as(merchant)),
      200,
    ).body.vaultedShopperId;
    const before = await subscriptionRows(merchant);
    const bad = (ecp: Record<string, unknown>) => ({
      ecpInfo: { ecp: { ...ecpSource().ecpInfo.ecp, ...ecp } },
    });
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [
        'a routing number failing the ABA check',
        { paymentSource: bad({ routingNumber: '011000016' }) },
        'paymentSource.ecpInfo.ecp.routingNumber',
      ],
      [
        'an account number of 3 digits',
        { paymentSource: bad({ accountNumber: '123' }) },
        'paymentSource.ecpInfo.ecp.accountNumber',
      ],
      [
        'an unknown account type',
        { paymentSource: bad({ accountType: 'SAVINGS' }) },
        'paymentSource.ecpInfo.ecp.accountType',
      ],
      [
        'no routing number',
        { paymentSource: bad({ routingNumber: undefined }) },
        'paymentSource.ecpInfo.ecp.routingNumber',
      ],
      ['no shopper authorization', { authorizedByShopper: undefined }, 'authorizedByShopper'],
      [
        'a card as well',
        { paymentSource: { ...ecpSource(), creditCardInfo: { creditCard: saleBody().creditCard } } },
        'paymentSource.ecpInfo',
      ],
      ['a plan in euros', { planId: euroPlan }, 'currency'],
      [
        'a vaulted shopper without an ECP account',
        { payerInfo: undefined, vaultedShopperId: otherShopper, paymentSource: { ecpInfo: { ecp: {} } } },
        'paymentSource.ecpInfo.ecp.accountNumber',
      ],
    ];
    for (const [name, change, property] of cases) {
      const body = { planId, payerInfo, paymentSource: ecpSource(), authorizedByShopper: true, ...change };
      const reply = await api.post('/recurring/subscriptions', body, as(merchant));
      expect(expectStatus(reply, 400).body.message[0], name).toMatchObject({
        errorName: 'VALIDATION_GENERAL_FAILURE',
        code: 10001,
        invalidProperty: { name: property },
      });
      expectNoAccountNumber(reply.text);
    }
    const xmlReply = expectStatus(
      await api.post(
        '/recurring/subscriptions',
        xmlDocument('recurring-subscription', {
          planId,
          payerInfo,
          paymentSource: bad({ routingNumber: '123456789' }),
          authorizedByShopper: 'true',
        }),
        as(merchant, { format: 'xml' }),
      ),
      400,
    );
    expect(xmlReply.text).toContain('<name>paymentSource.ecpInfo.ecp.routingNumber</name>');
    expectNoAccountNumber(xmlReply.text);
    expect(await subscriptionRows(merchant)).toEqual(before);
  });
});

describe('ACH return codes (docs/ach.md, Returns)', () => {
  const codes = ['R01', 'R02', 'R03', 'R04', 'R08', 'R10', 'R16', 'R20', 'R29'];

  it('a debit failed or returned by the bank shows its NACHA return code, and its IPN carries it', async () => {
    const merchant = await merchantWithIpn();
    const debitOf = async (accountNumber: string) =>
      expectStatus(
        await api.post(
          '/alt-transactions',
          achBody({
            amount: 3,
            ecpTransaction: { accountNumber, routingNumber: ROUTING, accountType: 'CONSUMER_CHECKING' },
          }),
          as(merchant),
        ),
        200,
      ).body.transactionId as string;
    const failed = new Map<string, string>();
    const returned = new Map<string, string>();
    for (const code of codes) {
      failed.set(code, await debitOf(sandboxAchAccount(code, false)));
      returned.set(code, await debitOf(sandboxAchAccount(code, true)));
    }
    const collected = await debitOf(ACCOUNT);
    await advance(merchant, 'PT3M');
    for (const [code, id] of failed) {
      const body = await until(id, 'FAIL', merchant);
      expect(body.processingInfo).toEqual({
        processingStatus: 'FAIL',
        processingErrors: [achReturnError(code)],
      });
      expect((await ipn('DECLINE', id)).get('declineReason')).toBe(code);
    }
    // Collected first: no return code shows before the return.
    for (const id of [...returned.values(), collected]) {
      expect((await until(id, 'SUCCESS', merchant)).processingInfo).toEqual({ processingStatus: 'SUCCESS' });
    }
    await advance(merchant, 'PT3M');
    for (const [code, id] of returned) {
      const body = await until(id, 'REFUNDED', merchant);
      expect(body.processingInfo).toEqual({
        processingStatus: 'REFUNDED',
        processingErrors: [achReturnError(code)],
      });
      expect((await ipn('REFUND', id)).get('reversalReason')).toBe(code);
    }
    const xml = expectStatus(
      await api.get(`/alt-transactions/${failed.get('R16')}`, {
        ...as(merchant),
        accept: 'application/xml',
        shape: altShape,
      }),
      200,
    );
    expect(xml.text).toContain(
      '<processing-info><processing-status>FAIL</processing-status><processing-errors><processing-error><processing-error-code>R16</processing-error-code><processing-error-name>ACCOUNT_FROZEN</processing-error-name><processing-error-description>Account frozen</processing-error-description></processing-error></processing-errors></processing-info>',
    );
    const { rows } = await stack.db.query('select return_code from sepa_debit where id = $1', [collected]);
    expect(rows).toEqual([{ return_code: null }]);
  });

  it('a debit refunded in full before its return shows no return code, and is not returned', async () => {
    const merchant = await merchantWithIpn();
    const id: string = expectStatus(
      await api.post(
        '/alt-transactions',
        achBody({
          amount: 8,
          ecpTransaction: {
            accountNumber: sandboxAchAccount('R10', true),
            routingNumber: ROUTING,
            accountType: 'CONSUMER_CHECKING',
          },
        }),
        as(merchant),
      ),
      200,
    ).body.transactionId;
    await advance(merchant, 'PT3M');
    await until(id, 'SUCCESS', merchant);
    expectStatus(await api.post(`/transactions/refund/${id}`, {}, as(merchant)), 200);
    await advance(merchant, 'PT3M');
    const body = expectStatus(await api.get(`/alt-transactions/${id}`, as(merchant)), 200).body;
    expect(body.processingInfo).toEqual({ processingStatus: 'REFUNDED' });
    const { rows } = await stack.db.query(
      'select count(*)::int as returns from sepa_refund where debit_id = $1 and returned',
      [id],
    );
    expect(rows).toEqual([{ returns: 0 }]);
  });
});
