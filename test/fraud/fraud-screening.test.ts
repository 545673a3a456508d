import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, type Reply, saleBody } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Fraud screening (docs/fraud.md): a merchant's rules over real HTTP, in JSON and XML, evaluated before any
// processor is asked; a blocked sale is the original's 15011 FRAUD_DETECTED with its fraudEvents, writes no
// transaction and no payment attempt, and sends FraudDecline.
// ---------------------------------------------------------------------------------------------------------

let stack: Stack;
let receiver: IpnReceiver;
let api: ReturnType<typeof client>;

const settingsShape = {
  root: 'fraud-settings',
  wrapped: { amountLimits: 'amount-limit' },
};
const fraudMessages = { root: 'messages', repeated: ['message', 'fraudEvent'] };
const transactionShape = { root: 'card-transaction' };

/** Sandbox addresses (docs/fraud.md): the documentation ranges, placed in the US and in Great Britain. */
const US_ADDRESS = '192.0.2.10';
const GB_ADDRESS = '198.51.100.7';

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  api = client(stack);
}, 120_000);

afterAll(async () => {
  await Promise.all([stack?.close(), receiver?.close()]);
});

/** A merchant of its own, with rules, and whose FraudDecline and Charge IPNs reach a hook of its own. */
async function merchantWith(
  rules: Record<string, unknown>,
): Promise<{ merchant: TestMerchant; hook: string }> {
  const merchant = await stack.newMerchant();
  const hook = receiver.newHook();
  const config = hookConfig(hook, ['sendFraudDecline', 'sendCharge']);
  expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
  expectStatus(await api.put('/fraud-settings', rules, as(merchant)), 200);
  return { merchant, hook };
}

const sale = (merchant: TestMerchant, overrides: Record<string, unknown> = {}) =>
  api.post('/transactions', saleBody(overrides), as(merchant));

async function rowsOf(merchant: TestMerchant) {
  const { rows } = await stack.db.query<{ transactions: number; attempts: number }>(
    `select (select count(*) from card_transaction where merchant_id = $1)::int as transactions,
            (select count(*) from payment_attempt where merchant_id = $1)::int as attempts`,
    [merchant.id],
  );
  return rows[0];
}

function expectFraudDetected(reply: Reply, codes: string[]) {
  expectStatus(reply, 400);
  const [message] = reply.body.message;
  expect(message).toMatchObject({ errorName: 'FRAUD_DETECTED', code: 15011 });
  expect(message.fraudEvents.fraudReferenceId).toMatch(/^[0-9a-f-]{36}$/);
  expect(
    message.fraudEvents.fraudEvent.map((event: { fraudEventCode: string }) => event.fraudEventCode),
  ).toEqual(codes);
  for (const event of message.fraudEvents.fraudEvent) expect(event.fraudEventDecision).toBe('D');
  return message.fraudEvents;
}

describe('fraud settings', () => {
  it('are off until set, then read back in JSON and XML as they were replaced', async () => {
    const merchant = await stack.newMerchant();
    expect(expectStatus(await api.get('/fraud-settings', as(merchant)), 200).body).toEqual({
      amountLimits: [],
      countryMismatchDecline: false,
    });
    const rules = {
      cardHourlyLimit: 3,
      ipAddressHourlyLimit: '10',
      amountLimits: [
        { currency: 'USD', minAmount: '1.00', maxAmount: 500 },
        { currency: 'JPY', maxAmount: 50000 },
      ],
      countryMismatchDecline: true,
    };
    const stored = {
      cardHourlyLimit: 3,
      ipAddressHourlyLimit: 10,
      amountLimits: [
        { currency: 'USD', minAmount: 1, maxAmount: 500 },
        { currency: 'JPY', maxAmount: 50000 },
      ],
      countryMismatchDecline: true,
    };
    expect(expectStatus(await api.put('/fraud-settings', rules, as(merchant)), 200).body).toEqual(stored);
    expect(expectStatus(await api.get('/fraud-settings', as(merchant)), 200).body).toEqual(stored);

    const xml = expectStatus(
      await api.get('/fraud-settings', as(merchant, { accept: 'application/xml', shape: settingsShape })),
      200,
    );
    expect(xml.text).toContain(
      '<fraud-settings xmlns="http://ws.plimus.com"><card-hourly-limit>3</card-hourly-limit>' +
        '<ip-address-hourly-limit>10</ip-address-hourly-limit><amount-limits><amount-limit><currency>USD</currency>' +
        '<min-amount>1.00</min-amount><max-amount>500.00</max-amount></amount-limit>',
    );

    // XML in: replaces the whole set, so the limits it leaves out are off.
    const document = `<?xml version="1.0" encoding="UTF-8"?>
<fraud-settings xmlns="http://ws.plimus.com"><card-hourly-limit>2</card-hourly-limit><amount-limits><amount-limit><currency>EUR</currency><max-amount>99.99</max-amount></amount-limit></amount-limits><country-mismatch-decline>false</country-mismatch-decline></fraud-settings>`;
    const replaced = expectStatus(
      await api.put(
        '/fraud-settings',
        undefined,
        as(merchant, { format: 'xml', raw: document, shape: settingsShape }),
      ),
      200,
    );
    expect(replaced.body).toEqual({
      cardHourlyLimit: '2',
      amountLimits: [{ currency: 'EUR', maxAmount: '99.99' }],
      countryMismatchDecline: 'false',
    });
    expect(expectStatus(await api.get('/fraud-settings', as(merchant)), 200).body).toEqual({
      cardHourlyLimit: 2,
      amountLimits: [{ currency: 'EUR', maxAmount: 99.99 }],
      countryMismatchDecline: false,
    });
  });

  it.each([
    [{ cardHourlyLimit: 0 }, 'cardHourlyLimit'],
    [{ ipAddressHourlyLimit: 'many' }, 'ipAddressHourlyLimit'],
    [{ amountLimits: [{ currency: 'XXX', maxAmount: 5 }] }, 'amountLimits.0.currency'],
    [{ amountLimits: [{ currency: 'USD', minAmount: 10, maxAmount: 5 }] }, 'amountLimits.0.minAmount'],
    [{ amountLimits: [{ currency: 'USD' }] }, 'amountLimits.0.maxAmount'],
    [{ amountLimits: [{ currency: 'USD', maxAmount: '5.001' }] }, 'amountLimits.0.maxAmount'],
    [{ amountLimits: [{ currency: 'USD', maxAmount: -1 }] }, 'amountLimits.0.maxAmount'],
    [
      {
        amountLimits: [
          { currency: 'USD', maxAmount: 5 },
          { currency: 'USD', maxAmount: 6 },
        ],
      },
      'amountLimits.1.currency',
    ],
    [{ countryMismatchDecline: 'yes' }, 'countryMismatchDecline'],
  ])('refuse %j naming the property, and keep what was stored', async (rules, property) => {
    const merchant = await stack.newMerchant();
    expectStatus(await api.put('/fraud-settings', { cardHourlyLimit: 7 }, as(merchant)), 200);
    const refused = expectStatus(await api.put('/fraud-settings', rules, as(merchant)), 400);
    expect(refused.body.message[0].invalidProperty.name).toBe(property);
    expect(refused.body.message[0].code).toBeGreaterThanOrEqual(10001);
    expect(expectStatus(await api.get('/fraud-settings', as(merchant)), 200).body.cardHourlyLimit).toBe(7);
  });

  it('are each merchant’s own, and every replacement is audited', async () => {
    const first = await stack.newMerchant();
    const second = await stack.newMerchant();
    expectStatus(await api.put('/fraud-settings', { cardHourlyLimit: 1 }, as(first)), 200);
    expect(
      expectStatus(await api.get('/fraud-settings', as(second)), 200).body.cardHourlyLimit,
    ).toBeUndefined();
    const { rows } = await stack.db.query(
      `select action from audit_event where merchant_id = $1 and action = 'fraud-settings.replace'`,
      [first.id],
    );
    expect(rows).toHaveLength(1);
  });
});

describe('a sale the rules decline', () => {
  it('above the maximum amount is 15011 FRAUD_DETECTED, nothing written, nothing asked, FraudDecline sent', async () => {
    const { merchant, hook } = await merchantWith({
      amountLimits: [{ currency: 'USD', minAmount: 1, maxAmount: 100 }],
    });
    const events = expectFraudDetected(await sale(merchant, { amount: 100.01 }), [
      'orderTotalAboveMaximumDecline',
    ]);
    expect(events.fraudEvent[0].fraudEventExpression).toBe('amount 100.01 USD > 100.00 USD');
    expectFraudDetected(await sale(merchant, { amount: 0.99 }), ['orderTotalBelowMinimumDecline']);
    expect(await rowsOf(merchant)).toEqual({ transactions: 0, attempts: 0 });

    const ipns = await waitFor(
      'two FraudDecline IPNs',
      () => receiver.at(hook).length >= 2 && receiver.at(hook),
    );
    const declined = ipns.map((ipn) => ipn.params);
    expect(declined.map((params) => params.get('transactionType'))).toEqual([
      'FRAUD_DECLINE',
      'FRAUD_DECLINE',
    ]);
    expect(declined[0]?.get('invoiceAmount')).toBe('100.01');
    expect(declined[0]?.get('creditCardLastFourDigits')).toBe('9299');
    expect(declined[0]?.get('firstName')).toBe('Ada');
    for (const params of declined) expect(params.toString()).not.toContain('4263982640269299');

    // Within the limits, and in another currency, the sale goes through, screened.
    const passed = expectStatus(await sale(merchant, { amount: 100 }), 200);
    expect(passed.body.fraudResultInfo).toEqual({ deviceDataCollector: 'N' });
    expectStatus(await sale(merchant, { amount: 5000, currency: 'EUR' }), 200);
  });

  it('by card velocity on a hosted-fields token leaves the token unspent', async () => {
    const { merchant } = await merchantWith({ cardHourlyLimit: 1 });
    expectStatus(await sale(merchant), 200);
    const created = expectStatus(await api.post('/payment-fields-tokens', undefined, as(merchant)), 201);
    const pfToken = created.headers.get('location')?.split('/').at(-1) ?? '';
    const card = { ccNumber: '4263982640269299', cvv: '837', expDate: '02/2031' };
    expectStatus(await api.put(`/payment-fields-tokens/${pfToken}`, card, { merchant: null }), 200);
    const tokenSale = { cardTransactionType: 'AUTH_CAPTURE', amount: 4, currency: 'USD', pfToken };
    expectFraudDetected(await api.post('/transactions', tokenSale, as(merchant)), [
      'cardPtokVelocityDecline',
    ]);
    expectStatus(await api.put('/fraud-settings', {}, as(merchant)), 200);
    expectStatus(await api.post('/transactions', tokenSale, as(merchant)), 200);
  });

  it('answers XML in the original’s shape: fraud-events after the description, fraud-event repeated', async () => {
    const { merchant } = await merchantWith({ amountLimits: [{ currency: 'USD', maxAmount: 10 }] });
    const reply = await sale(merchant, { amount: 11 });
    expectStatus(reply, 400);
    const xml = expectStatus(
      await api.post(
        '/transactions',
        saleBody({ amount: 11 }),
        as(merchant, { accept: 'application/xml', shape: fraudMessages }),
      ),
      400,
    );
    expect(xml.text).toMatch(
      /<message><error-name>FRAUD_DETECTED<\/error-name><code>15011<\/code><description>[^<]+<\/description><fraud-events><fraud-reference-id>[0-9a-f-]{36}<\/fraud-reference-id><fraud-event><fraud-event-code>orderTotalAboveMaximumDecline<\/fraud-event-code><fraud-event-decision>D<\/fraud-event-decision><fraud-event-expression>amount 11.00 USD &gt; 10.00 USD<\/fraud-event-expression><\/fraud-event><\/fraud-events><\/message>/,
    );
  });

  it('by card velocity: the limit’s sales in an hour pass, the next is declined, an hour later it passes', async () => {
    const { merchant } = await merchantWith({ cardHourlyLimit: 2 });
    expectStatus(await sale(merchant), 200);
    // A processor's decline still counts: the card was tried.
    expectStatus(await sale(merchant, { amount: 10.51 }), 400);
    const blocked = expectFraudDetected(await sale(merchant), ['cardPtokVelocityDecline']);
    expect(blocked.fraudEvent[0].fraudEventExpression).toBe('card_hourly_count 2 >= 2');
    // Another card is its own count; a blocked sale adds nothing to it.
    expectStatus(
      await sale(merchant, {
        creditCard: { ...saleBody().creditCard, cardNumber: '5425233430109903', securityCode: '123' },
      }),
      200,
    );
    expect(await rowsOf(merchant)).toMatchObject({ transactions: 2 });

    expectStatus(await api.put('/sandbox/clock', { advanceBy: 'PT61M' }, as(merchant)), 200);
    expectStatus(await sale(merchant), 200);
  });

  it('by card velocity counts the vaulted card a returning shopper pays with', async () => {
    const { merchant } = await merchantWith({ cardHourlyLimit: 1 });
    const first = expectStatus(await sale(merchant), 200);
    const returning = {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 3,
      currency: 'USD',
      vaultedShopperId: first.body.vaultedShopperId,
    };
    expectFraudDetected(await api.post('/transactions', returning, as(merchant)), [
      'cardPtokVelocityDecline',
    ]);
  });

  it('by IP address velocity, counting sales with other cards from the same address', async () => {
    const { merchant } = await merchantWith({ ipAddressHourlyLimit: 1 });
    const from = (address: string) => ({ transactionFraudInfo: { shopperIpAddress: address } });
    expectStatus(await sale(merchant, from(US_ADDRESS)), 200);
    const otherCard = { ...saleBody().creditCard, cardNumber: '5425233430109903', securityCode: '123' };
    expectFraudDetected(await sale(merchant, { ...from(US_ADDRESS), creditCard: otherCard }), [
      'deviceIpVelocityDecline',
    ]);
    expectStatus(await sale(merchant, from('192.0.2.11')), 200);
    // A sale that names no address is not counted by address.
    expectStatus(await sale(merchant), 200);
  });

  it('by country: a US card from a British address is declined, from a US or an unplaced address it passes', async () => {
    const { merchant } = await merchantWith({ countryMismatchDecline: true });
    const from = (address: string, extra: Record<string, unknown> = {}) => ({
      transactionFraudInfo: { shopperIpAddress: address, ...extra },
    });
    const blocked = expectFraudDetected(await sale(merchant, from(GB_ADDRESS)), [
      'paymentCountryIpCountryMismatchDecline',
    ]);
    expect(blocked.fraudEvent[0].fraudEventExpression).toBe('payment_country US != ip_country GB');
    const passed = expectStatus(await sale(merchant, from(US_ADDRESS, { fraudSessionId: 'session-1' })), 200);
    expect(passed.body.fraudResultInfo).toEqual({ deviceDataCollector: 'Y' });
    expectStatus(await sale(merchant, from('100.64.0.1')), 200);

    // Kept with the transaction: a retrieval answers it, in JSON and in XML's element order.
    const id = passed.body.transactionId;
    const again = expectStatus(await api.get(`/transactions/${id}`, as(merchant)), 200);
    expect(again.body.fraudResultInfo).toEqual({ deviceDataCollector: 'Y' });
    const xml = expectStatus(
      await api.get(
        `/transactions/${id}`,
        as(merchant, { accept: 'application/xml', shape: transactionShape }),
      ),
      200,
    );
    expect(xml.text).toMatch(
      /<\/processing-info><fraud-result-info><device-data-collector>Y<\/device-data-collector><\/fraud-result-info>/,
    );
  });

  it('several rules at once are each reported', async () => {
    const { merchant } = await merchantWith({
      countryMismatchDecline: true,
      amountLimits: [{ currency: 'USD', maxAmount: 1 }],
    });
    expectFraudDetected(await sale(merchant, { transactionFraudInfo: { shopperIpAddress: GB_ADDRESS } }), [
      'orderTotalAboveMaximumDecline',
      'paymentCountryIpCountryMismatchDecline',
    ]);
  });

  it('a keyed blocked sale replays its answer, and a merchant without rules gets no fraudResultInfo', async () => {
    const { merchant } = await merchantWith({ amountLimits: [{ currency: 'USD', maxAmount: 1 }] });
    const keyed = as(merchant, { headers: { 'idempotency-key': 'fraud-replay-1' } });
    const first = await api.post('/transactions', saleBody(), keyed);
    const replay = await api.post('/transactions', saleBody(), keyed);
    expectFraudDetected(first, ['orderTotalAboveMaximumDecline']);
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual(first.body);

    const plain = expectStatus(await sale(await stack.newMerchant()), 200);
    expect(plain.body.fraudResultInfo).toBeUndefined();
  });

  it('screens a subscription’s first charge but not its renewals', async () => {
    const merchant = await stack.newMerchant();
    const plan = expectStatus(
      await api.post(
        '/recurring/plans',
        { chargeFrequency: 'DAILY', name: 'Daily', currency: 'USD', recurringChargeAmount: 2 },
        as(merchant),
      ),
      200,
    ).body;
    const subscribe = () =>
      api.post(
        '/recurring/subscriptions',
        {
          planId: plan.planId,
          payerInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139' },
          paymentSource: { creditCardInfo: { creditCard: saleBody().creditCard } },
        },
        as(merchant),
      );
    const subscription = expectStatus(await subscribe(), 200).body;
    expectStatus(
      await api.put('/fraud-settings', { amountLimits: [{ currency: 'USD', maxAmount: 1 }] }, as(merchant)),
      200,
    );
    // A new subscription's first charge is a shopper's sale: screened, and above the limit.
    expectFraudDetected(await subscribe(), ['orderTotalAboveMaximumDecline']);
    // The schedule's next charge of the first subscription is made all the same.
    expectStatus(await api.put('/sandbox/clock', { advanceBy: 'P1DT1H' }, as(merchant)), 200);
    await waitFor('the renewal charge', async () => {
      const { rows } = await stack.db.query<{ charges: number }>(
        `select count(*)::int as charges from subscription_charge
         where subscription_id = $1 and kind = 'RECURRING' and status = 'CHARGED'`,
        [subscription.subscriptionId],
      );
      return (rows[0]?.charges ?? 0) >= 1;
    });
  });
});
