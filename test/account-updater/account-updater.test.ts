import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type CallOptions, client, expectStatus, type Reply } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { createPlan, subscribe } from '../support/recurring.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// The account updater (docs/account-updater.md; docs/conformance.md, Account updater) over real HTTP, in
// JSON and XML: vaulted cards sent in a batch, answered by the core's own workers once five days have passed
// on the merchant's sandbox clock, the vault updated in place and the IPNs received by a real endpoint.
// ---------------------------------------------------------------------------------------------------------

/** The sandbox's test cards (docs/conformance.md, Account updater). */
const NUMBER_CHANGED = '4000000000000507';
const CLOSED = '4000000000000515';
const EXPIRY_CHANGED = '4000000000000523';
const EXPIRY_CHANGED_MC = '5100000000000529';
const CONTACT_CARDHOLDER = '4000000000000549';
/** Any other card has no change. */
const UNCHANGED = '4263982640269299';
/** The replacement of NUMBER_CHANGED: its seventh digit moved on, a new check digit. */
const REPLACEMENT_LAST_FOUR = '0505';
const LUHN_INVALID = '4000000000000508';
const JCB = '3566000020000410';
const CARDS = [NUMBER_CHANGED, CLOSED, EXPIRY_CHANGED, EXPIRY_CHANGED_MC, CONTACT_CARDHOLDER, UNCHANGED];

const shape = { root: 'batch-account-update', repeated: ['accountUpdate'] };
const asXml = (merchant: TestMerchant): CallOptions =>
  as(merchant, { format: 'xml', accept: 'application/xml', shape });

let stack: Stack;
let api: ReturnType<typeof client>;
let receiver: IpnReceiver;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  api = client(stack);
});

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

/** A merchant of its own (its own clock) whose account updater events go to a hook of the receiver. */
async function merchantWithIpn(): Promise<{ merchant: TestMerchant; hook: string }> {
  const merchant = await stack.newMerchant();
  const hook = receiver.newHook();
  const config = hookConfig(hook, ['sendAccountUpdater', 'sendCcStatusChanged']);
  expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
  return { merchant, hook };
}

/** A vaulted shopper with one card; its id. */
async function vault(merchant: TestMerchant, cardNumber: string, merchantShopperId: string): Promise<number> {
  const creditCard = { cardNumber, securityCode: '123', expirationMonth: '04', expirationYear: '2031' };
  const reply = await api.post(
    '/vaulted-shoppers',
    {
      firstName: 'Ada',
      lastName: 'Lovelace',
      merchantShopperId,
      paymentSources: { creditCardInfo: [{ creditCard }] },
    },
    as(merchant),
  );
  return expectStatus(reply, 200).body.vaultedShopperId;
}

const cardEntry = (merchantUpdaterId: string, cardNumber: string, expirationYear = '2031') => ({
  merchantUpdaterId,
  originalCard: { creditCard: { cardNumber, expirationMonth: '04', expirationYear } },
});

/** The batch as an XML document of the original's schema. */
function batchXml(batchId: string, entries: ReturnType<typeof cardEntry>[]): string {
  const lines = entries
    .map(
      ({ merchantUpdaterId, originalCard: { creditCard: card } }) =>
        `<account-update><merchant-updater-id>${merchantUpdaterId}</merchant-updater-id><original-card><credit-card>` +
        `<card-number>${card.cardNumber}</card-number><expiration-month>${card.expirationMonth}</expiration-month>` +
        `<expiration-year>${card.expirationYear}</expiration-year></credit-card></original-card></account-update>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<batch-account-update xmlns="http://ws.plimus.com"><account-update-batch-id>${batchId}</account-update-batch-id>${lines}</batch-account-update>`;
}

async function advance(merchant: TestMerchant, advanceBy: string) {
  expectStatus(await api.put('/sandbox/clock', { advanceBy }, as(merchant)), 200);
}

/** The batch's answers, once the workers have applied them. */
async function answered(merchant: TestMerchant, batchId: string, options: CallOptions = as(merchant)) {
  return waitFor(`the answers of ${batchId}`, async () => {
    const reply = await api.get(`/account-updater/${batchId}`, options);
    return reply.status === 200 ? reply : undefined;
  });
}

/** The batch's lines by merchantUpdaterId (XML replies read back with one line as an object). */
function linesOf(reply: Reply) {
  const lines = [reply.body.accountUpdate].flat();
  // biome-ignore lint/suspicious/noExplicitAny: replies of the resource; tests assert on their fields
  return new Map<string, any>(lines.map((line) => [line.merchantUpdaterId, line]));
}

const cardOf = async (merchant: TestMerchant, shopperId: number) => {
  const shopper = expectStatus(await api.get(`/vaulted-shoppers/${shopperId}`, as(merchant)), 200).body;
  return shopper.paymentSources.creditCardInfo?.[0]?.creditCard;
};

const expectNoCardNumber = (text: string) => {
  for (const number of [...CARDS, LUHN_INVALID, JCB]) expect(text).not.toContain(number);
};

describe('the account updater, in JSON', () => {
  it('answers each card as received, then after five days updates the vault in place and sends the IPNs', async () => {
    const { merchant, hook } = await merchantWithIpn();
    const shoppers = {
      numberChanged: await vault(merchant, NUMBER_CHANGED, 'au-number'),
      closed: await vault(merchant, CLOSED, 'au-closed'),
      expiryChanged: await vault(merchant, EXPIRY_CHANGED, 'au-expiry'),
      contact: await vault(merchant, CONTACT_CARDHOLDER, 'au-contact'),
      unchanged: await vault(merchant, UNCHANGED, 'au-unchanged'),
    };
    const subscription = await subscribe(api, merchant, await createPlan(api, merchant), {
      vaultedShopperId: shoppers.numberChanged,
      payerInfo: undefined,
      paymentSource: undefined,
    });
    const subscriptionId = String(subscription.subscriptionId);
    const [before] = (
      await stack.db.query<{ fingerprint: string; sealed_number: string }>(
        `select c.fingerprint, c.sealed_number from stored_card c where c.shopper_id = $1`,
        [shoppers.numberChanged],
      )
    ).rows;

    const batchId = `au-${randomUUID().slice(0, 8)}`;
    const created = await api.post(
      '/account-updater',
      {
        accountUpdateBatchId: batchId,
        accountUpdate: [
          cardEntry('number', NUMBER_CHANGED),
          cardEntry('number-again', NUMBER_CHANGED),
          cardEntry('closed', CLOSED),
          cardEntry('expiry', EXPIRY_CHANGED),
          cardEntry('contact', CONTACT_CARDHOLDER),
          cardEntry('unchanged', UNCHANGED),
          cardEntry('not-vaulted', EXPIRY_CHANGED_MC),
          cardEntry('luhn', LUHN_INVALID),
          cardEntry('jcb', JCB),
          cardEntry('far-expiry', UNCHANGED, '2099'),
        ],
      },
      as(merchant),
    );
    expectStatus(created, 200);
    expectNoCardNumber(created.text);
    expect(created.body).toMatchObject({
      accountUpdateBatchId: batchId,
      responseCode: '000',
      responseMessage: 'Valid Format',
    });
    const received = linesOf(created);
    expect(received.get('number')).toEqual({
      merchantUpdaterId: 'number',
      updateResponseCode: '000',
      updateResponseMessage: 'Approved for submission to account updater process.',
      originalCard: {
        creditCard: {
          cardLastFourDigits: '0507',
          cardType: 'VISA',
          expirationMonth: '04',
          expirationYear: '2031',
        },
      },
    });
    expect(received.get('luhn')?.updateResponseCode).toBe('301');
    expect(received.get('jcb')?.updateResponseCode).toBe('390');
    expect(received.get('far-expiry')?.updateResponseCode).toBe('320');

    // Not before the reference's delay, by the merchant's clock.
    const early = await api.get(`/account-updater/${batchId}`, as(merchant));
    expectStatus(early, 400);
    expect(early.body.message[0]).toMatchObject({
      errorName: 'ACCOUNT_UPDATE_FILE_NOT_AVAILABLE',
      code: 20081,
    });
    await advance(merchant, 'P4D');
    expectStatus(await api.get(`/account-updater/${batchId}`, as(merchant)), 400);
    await advance(merchant, 'P1D');

    const reply = await answered(merchant, batchId);
    expectNoCardNumber(reply.text);
    const lines = linesOf(reply);
    const answer = (id: string) => {
      const line = lines.get(id);
      return [line?.updateResponseCode, line?.updatedCard?.creditCard];
    };
    expect(answer('number')).toEqual([
      '500',
      {
        cardLastFourDigits: REPLACEMENT_LAST_FOUR,
        cardType: 'VISA',
        expirationMonth: '04',
        expirationYear: '2034',
      },
    ]);
    expect(answer('number-again')).toEqual(answer('number'));
    expect(answer('closed')[0]).toBe('501');
    expect(answer('expiry')).toEqual([
      '502',
      { cardLastFourDigits: '0523', cardType: 'VISA', expirationMonth: '04', expirationYear: '2034' },
    ]);
    expect(answer('contact')[0]).toBe('504');
    expect(answer('unchanged')).toEqual([
      '506',
      { cardLastFourDigits: '9299', cardType: 'VISA', expirationMonth: '04', expirationYear: '2031' },
    ]);
    expect(answer('not-vaulted')).toEqual([
      '502',
      { cardLastFourDigits: '0529', cardType: 'MASTERCARD', expirationMonth: '04', expirationYear: '2034' },
    ]);
    expect(lines.get('luhn')).toMatchObject({ updateResponseCode: '301' });
    expect(lines.get('luhn')?.updatedCard).toBeUndefined();

    // The vault, updated in place.
    expect(await cardOf(merchant, shoppers.numberChanged)).toMatchObject({
      cardLastFourDigits: REPLACEMENT_LAST_FOUR,
      expirationYear: '2034',
    });
    expect(await cardOf(merchant, shoppers.expiryChanged)).toMatchObject({
      cardLastFourDigits: '0523',
      expirationYear: '2034',
    });
    expect(await cardOf(merchant, shoppers.closed)).toBeUndefined();
    expect(await cardOf(merchant, shoppers.contact)).toMatchObject({ expirationYear: '2031' });
    expect(await cardOf(merchant, shoppers.unchanged)).toMatchObject({ expirationYear: '2031' });
    const [after] = (
      await stack.db.query<{ fingerprint: string; sealed_number: string }>(
        `select c.fingerprint, c.sealed_number from stored_card c where c.shopper_id = $1`,
        [shoppers.numberChanged],
      )
    ).rows;
    expect(after?.fingerprint).not.toBe(before?.fingerprint);
    expect(after?.sealed_number).not.toBe(before?.sealed_number);
    expect(after?.sealed_number).not.toContain(REPLACEMENT_LAST_FOUR);

    // The replacement is charged; the closed card is not.
    const sale = { cardTransactionType: 'AUTH_CAPTURE', amount: 10, currency: 'USD' };
    const charged = await api.post(
      '/transactions',
      { ...sale, vaultedShopperId: shoppers.numberChanged },
      as(merchant),
    );
    expect(expectStatus(charged, 200).body.creditCard.cardLastFourDigits).toBe(REPLACEMENT_LAST_FOUR);
    const refused = await api.post(
      '/transactions',
      { ...sale, vaultedShopperId: shoppers.closed },
      as(merchant),
    );
    expect(expectStatus(refused, 400).body.message[0].errorName).toBe('INVALID_PAYMENT_DETAILS');

    // The IPNs: AccountUpdater for each vaulted card the answers name, CcStatusChanged for the closed one.
    const events = await waitFor('five account updater IPNs', () => {
      const got = receiver.at(hook);
      return got.length >= 5 ? got.map((request) => request.params) : undefined;
    });
    expect(events).toHaveLength(5); // the number sent twice changed its card, and reported it, once
    const updater = (shopperId: number) =>
      events.find(
        (params) =>
          params.get('transactionType') === 'ACCOUNT_UPDATER' &&
          params.get('accountId') === String(shopperId),
      );
    expect(Object.fromEntries(updater(shoppers.numberChanged) ?? [])).toMatchObject({
      sellerShopperId: 'au-number',
      linkedSubscriptions: subscriptionId,
      creditCardType: 'VISA',
      originalCreditCardLast4Digits: '0507',
      originalCreditCardExpirationMonth: '04',
      originalCreditCardExpirationYear: '2031',
      updatedCreditCardType: 'VISA',
      updatedCreditCardLast4Digits: REPLACEMENT_LAST_FOUR,
      updatedCreditCardExpirationMonth: '04',
      updatedCreditCardExpirationYear: '2034',
      responseMessage: 'The account number was changed.',
      testMode: 'Y',
    });
    expect(updater(shoppers.numberChanged)?.get('accountUpdaterLineId')).toMatch(/^\d+$/);
    expect(updater(shoppers.expiryChanged)?.get('updatedCreditCardExpirationYear')).toBe('2034');
    expect(updater(shoppers.expiryChanged)?.get('linkedSubscriptions')).toBe('');
    expect(updater(shoppers.closed)?.get('responseMessage')).toBe('The account was closed.');
    expect(updater(shoppers.contact)?.get('updatedCreditCardLast4Digits')).toBe('');
    expect(updater(shoppers.unchanged)).toBeUndefined();
    const statusChanged = events.filter((params) => params.get('transactionType') === 'CC_STATUS_CHANGED');
    expect(statusChanged.map((params) => Object.fromEntries(params))).toEqual([
      expect.objectContaining({
        accountId: String(shoppers.closed),
        sellerShopperId: 'au-closed',
        creditCardType: 'VISA',
        creditCardLastFourDigits: '0515',
        creditCardExpDate: '04/2031',
        creditCardStatus: 'CLOSED',
      }),
    ]);
    for (const params of events) expectNoCardNumber(params.toString());
  });

  it('runs a keyed batch once, answering a retry with the first answer', async () => {
    const merchant = await stack.newMerchant();
    const body = { accountUpdateBatchId: 'keyed-batch', accountUpdate: [cardEntry('one', UNCHANGED)] };
    const keyed = as(merchant, { headers: { 'idempotency-key': randomUUID() } });
    const first = expectStatus(await api.post('/account-updater', body, keyed), 200);
    const retry = expectStatus(await api.post('/account-updater', body, keyed), 200);
    expect(retry.body).toEqual(first.body);
    const { rows } = await stack.db.query('select 1 from account_update_batch where merchant_id = $1', [
      merchant.id,
    ]);
    expect(rows).toHaveLength(1);
  });
});

describe('the account updater, in XML', () => {
  it("takes the original's batch-account-update and answers in it, in the schema's order", async () => {
    const { merchant, hook } = await merchantWithIpn();
    const shopperId = await vault(merchant, EXPIRY_CHANGED_MC, 'au-xml');
    const batchId = `xml-${randomUUID().slice(0, 8)}`;
    const created = await api.post(
      '/account-updater',
      batchXml(batchId, [cardEntry('mc', EXPIRY_CHANGED_MC), cardEntry('visa', NUMBER_CHANGED)]),
      asXml(merchant),
    );
    expectStatus(created, 200);
    expect(created.headers.get('content-type')).toContain('application/xml');
    expectNoCardNumber(created.text);
    expect(created.text).toContain(
      `<batch-account-update xmlns="http://ws.plimus.com"><account-update-batch-id>${batchId}</account-update-batch-id>` +
        '<response-code>000</response-code><response-message>Valid Format</response-message><account-update>' +
        '<merchant-updater-id>mc</merchant-updater-id><update-response-code>000</update-response-code>',
    );

    const early = await api.get(`/account-updater/${batchId}`, asXml(merchant));
    expectStatus(early, 400);
    expect(early.text).toContain('<code>20081</code>');

    await advance(merchant, 'P5D');
    const reply = await answered(merchant, batchId, asXml(merchant));
    expect(reply.text).toContain(
      '<merchant-updater-id>mc</merchant-updater-id><update-response-code>502</update-response-code>' +
        '<update-response-message>The expiration date was changed.</update-response-message>' +
        '<original-card><credit-card><card-last-four-digits>0529</card-last-four-digits><card-type>MASTERCARD</card-type>' +
        '<expiration-month>04</expiration-month><expiration-year>2031</expiration-year></credit-card></original-card>' +
        '<updated-card><credit-card><card-last-four-digits>0529</card-last-four-digits><card-type>MASTERCARD</card-type>' +
        '<expiration-month>04</expiration-month><expiration-year>2034</expiration-year></credit-card></updated-card>',
    );
    expect(linesOf(reply).get('visa')).toMatchObject({ updateResponseCode: '500' });
    expect(await cardOf(merchant, shopperId)).toMatchObject({
      cardLastFourDigits: '0529',
      expirationYear: '2034',
    });
    const event = await waitFor('the AccountUpdater IPN', () => receiver.at(hook)[0]?.params);
    expect(event.get('transactionType')).toBe('ACCOUNT_UPDATER');
    expect(event.get('updatedCreditCardExpirationYear')).toBe('2034');

    // Answers are kept 45 days after they were ready, then deleted with their batch.
    await advance(merchant, 'P46D');
    await waitFor('the batch deleted after 45 days', async () => {
      const reply = await api.get(`/account-updater/${batchId}`, asXml(merchant));
      return reply.status === 404 && reply.text.includes('<code>20080</code>');
    });
  });
});

describe('the API description', () => {
  it('documents both operations with their JSON and XML bodies', async () => {
    const { paths, components } = expectStatus(await api.get('/openapi.json', { merchant: null }), 200).body;
    const create = paths['/account-updater'].post;
    expect(Object.keys(create.requestBody.content)).toEqual(['application/json', 'application/xml']);
    expect(create.responses['200'].content['application/xml'].schema.$ref).toBe(
      '#/components/schemas/AccountUpdateBatch',
    );
    expect(paths['/account-updater/{accountUpdateBatchId}'].get.responses['404']).toBeDefined();
    expect(components.schemas.AccountUpdateBatch.xml).toMatchObject({ name: 'batch-account-update' });
  });
});

describe('bad input', () => {
  const batchRows = async (merchant: TestMerchant) =>
    (
      await stack.db.query(
        'select (select count(*) from account_update_batch where merchant_id = $1)::int as batches, (select count(*) from account_update where merchant_id = $1)::int as lines',
        [merchant.id],
      )
    ).rows[0];

  it('answers every malformed batch with 400 10001 naming the property, storing nothing', async () => {
    const merchant = await stack.newMerchant();
    const many = Array.from({ length: 2001 }, (_, n) => cardEntry(`card-${n}`, UNCHANGED));
    const cases: [unknown, string][] = [
      [{ accountUpdate: [cardEntry('a', UNCHANGED)] }, 'accountUpdateBatchId'],
      [
        { accountUpdateBatchId: 'x'.repeat(26), accountUpdate: [cardEntry('a', UNCHANGED)] },
        'accountUpdateBatchId',
      ],
      [{ accountUpdateBatchId: 'empty', accountUpdate: [] }, 'accountUpdate'],
      [{ accountUpdateBatchId: 'too-many', accountUpdate: many }, 'accountUpdate'],
      [
        {
          accountUpdateBatchId: 'no-id',
          accountUpdate: [{ originalCard: cardEntry('a', UNCHANGED).originalCard }],
        },
        'merchantUpdaterId',
      ],
      [
        { accountUpdateBatchId: 'twice', accountUpdate: [cardEntry('a', UNCHANGED), cardEntry('a', CLOSED)] },
        'merchantUpdaterId',
      ],
      [
        { accountUpdateBatchId: 'letters', accountUpdate: [cardEntry('a', '4000-0000-0000-0507')] },
        'cardNumber',
      ],
      [
        {
          accountUpdateBatchId: 'month',
          accountUpdate: [
            {
              merchantUpdaterId: 'a',
              originalCard: {
                creditCard: { cardNumber: UNCHANGED, expirationMonth: '13', expirationYear: '2031' },
              },
            },
          ],
        },
        'expirationMonth',
      ],
    ];
    for (const [body, property] of cases) {
      const reply = await api.post('/account-updater', body, as(merchant));
      expectStatus(reply, 400);
      expect(reply.body.message[0], JSON.stringify(body).slice(0, 200)).toMatchObject({
        errorName: 'VALIDATION_GENERAL_FAILURE',
        code: 10001,
      });
      expect(JSON.stringify(reply.body.message)).toContain(property);
      expectNoCardNumber(reply.text);
    }
    const xml = await api.post(
      '/account-updater',
      batchXml('x'.repeat(30), [cardEntry('a', UNCHANGED)]),
      asXml(merchant),
    );
    expectStatus(xml, 400);
    expect(xml.text).toContain('<code>10001</code>');
    expect(await batchRows(merchant)).toEqual({ batches: 0, lines: 0 });
  });

  it('refuses a batch id used before, keeping the first batch alone', async () => {
    const merchant = await stack.newMerchant();
    const body = { accountUpdateBatchId: 'once', accountUpdate: [cardEntry('a', UNCHANGED)] };
    expectStatus(await api.post('/account-updater', body, as(merchant)), 200);
    const again = await api.post(
      '/account-updater',
      { ...body, accountUpdate: [cardEntry('a', UNCHANGED), cardEntry('b', CLOSED)] },
      as(merchant),
    );
    expectStatus(again, 400);
    expect(again.body.message[0]).toMatchObject({
      code: 10001,
      invalidProperty: { name: 'accountUpdateBatchId', messageValue: 'once' },
    });
    expect(await batchRows(merchant)).toEqual({ batches: 1, lines: 1 });
  });

  it("answers 404 for an unknown batch and for another merchant's", async () => {
    const owner = await stack.newMerchant();
    const other = await stack.newMerchant();
    const body = { accountUpdateBatchId: 'mine', accountUpdate: [cardEntry('a', UNCHANGED)] };
    expectStatus(await api.post('/account-updater', body, as(owner)), 200);
    for (const [merchant, batchId] of [
      [owner, 'unknown'],
      [other, 'mine'],
    ] as const) {
      const reply = await api.get(`/account-updater/${batchId}`, as(merchant));
      expectStatus(reply, 404);
      expect(reply.body.message[0]).toMatchObject({
        errorName: 'ACCOUNT_UPDATE_BATCH_NOT_FOUND',
        code: 20080,
      });
    }
  });
});
