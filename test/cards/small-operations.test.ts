import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, type Reply } from '../support/http.ts';
import { createPlan, subscribe } from '../support/recurring.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// The small operations clients of the original call (docs/conformance.md, Hosted payment fields tokens), over
// real HTTP in JSON and XML.
// ---------------------------------------------------------------------------------------------------------

let stack: Stack;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const tokenOf = (reply: Reply) => {
  expectStatus(reply, 201);
  const location = reply.headers.get('location') ?? '';
  expect(location).toMatch(/\/services\/2\/payment-fields-tokens\/[A-Za-z0-9_-]{32}$/);
  expect(reply.text).toBe('');
  return location.split('/').at(-1) ?? '';
};

const tokenSale = (pfToken: string) => ({
  cardTransactionType: 'AUTH_CAPTURE',
  amount: 12,
  currency: 'USD',
  pfToken,
});

async function tokenCount(merchantId: number): Promise<number> {
  const { rows } = await stack.db.query<{ tokens: number }>(
    'select count(*)::int as tokens from payment_fields_token where merchant_id = $1',
    [merchantId],
  );
  return rows[0]?.tokens ?? -1;
}

describe('POST /payment-fields-tokens/prefill', () => {
  it('puts a card the merchant holds on a new token, which pays once (JSON)', async () => {
    const merchant = await stack.newMerchant();
    const pfToken = tokenOf(
      await api.post(
        '/payment-fields-tokens/prefill',
        { ccNumber: '5425233430109903', expDate: '11/2032' },
        as(merchant),
      ),
    );
    const paid = expectStatus(await api.post('/transactions', tokenSale(pfToken), as(merchant)), 200);
    expect(paid.body.creditCard).toMatchObject({
      cardLastFourDigits: '9903',
      cardType: 'MASTERCARD',
      expirationMonth: '11',
      expirationYear: '2032',
    });
    const again = expectStatus(await api.post('/transactions', tokenSale(pfToken), as(merchant)), 400);
    expect(again.body.message[0].errorName).toBe('INVALID_PAYMENT_DETAILS');
    // The card is sealed on the token, never in the clear.
    const { rows } = await stack.db.query('select * from payment_fields_token where token = $1', [pfToken]);
    expect(JSON.stringify(rows)).not.toContain('5425233430109903');
  });

  it('takes XML, and the token is the merchant’s own', async () => {
    const merchant = await stack.newMerchant();
    const document = `<?xml version="1.0" encoding="UTF-8"?>
<payment-fields-token xmlns="http://ws.plimus.com"><cc-number>4263982640269299</cc-number><exp-date>02/2031</exp-date></payment-fields-token>`;
    const pfToken = tokenOf(
      await api.post(
        '/payment-fields-tokens/prefill',
        undefined,
        as(merchant, { format: 'xml', raw: document }),
      ),
    );
    const other = await stack.newMerchant();
    expectStatus(await api.post('/transactions', tokenSale(pfToken), as(other)), 400);
    expectStatus(await api.post('/transactions', tokenSale(pfToken), as(merchant)), 200);
  });

  it.each([
    [{ ccNumber: '4263982640269298', expDate: '02/2031' }, 'ccNumber'],
    [{ ccNumber: '4263982640269299', expDate: '2031-02' }, 'expDate'],
    [{ ccNumber: '4263982640269299', expDate: '01/2020' }, 'expDate'],
    [{ expDate: '02/2031' }, 'ccNumber'],
  ])('refuses %j naming the property, making no token', async (body, property) => {
    const merchant = await stack.newMerchant();
    const refused = expectStatus(await api.post('/payment-fields-tokens/prefill', body, as(merchant)), 400);
    expect(refused.body.message[0].invalidProperty.name).toBe(property);
    expect(refused.text).not.toContain('4263982640269299');
    expect(await tokenCount(merchant.id)).toBe(0);
  });

  it('refuses XML input errors in XML, and a caller without credentials', async () => {
    const merchant = await stack.newMerchant();
    const document = `<?xml version="1.0" encoding="UTF-8"?>
<payment-fields-token xmlns="http://ws.plimus.com"><cc-number>12</cc-number><exp-date>02/2031</exp-date></payment-fields-token>`;
    const refused = expectStatus(
      await api.post(
        '/payment-fields-tokens/prefill',
        undefined,
        as(merchant, { format: 'xml', raw: document }),
      ),
      400,
    );
    expect(refused.text).toContain('<invalid-property><name>ccNumber</name>');
    expectStatus(
      await api.post(
        '/payment-fields-tokens/prefill',
        { ccNumber: '4263982640269299', expDate: '02/2031' },
        {
          merchant: null,
        },
      ),
      401,
    );
    expect(await tokenCount(merchant.id)).toBe(0);
  });
});

describe('GET /subscriptions/{id}/run-specific (sandbox)', () => {
  async function subscription(merchant: Parameters<typeof as>[0]) {
    return subscribe(api, merchant, await createPlan(api, merchant, { recurringChargeAmount: 9 }));
  }

  const recurringCharges = async (subscriptionId: number) => {
    const { rows } = await stack.db.query<{ charges: number }>(
      `select count(*)::int as charges from subscription_charge
       where subscription_id = $1 and kind = 'RECURRING' and status = 'CHARGED'`,
      [subscriptionId],
    );
    return rows[0]?.charges ?? 0;
  };

  it("moves the merchant's clock to the next charge, which the renewal worker makes", async () => {
    const merchant = await stack.newMerchant();
    const created = await subscription(merchant);
    const reply = expectStatus(
      await api.get(`/subscriptions/${created.subscriptionId}/run-specific`, as(merchant)),
      204,
    );
    expect(reply.text).toBe('');
    const clock = expectStatus(await api.get('/sandbox/clock', as(merchant)), 200).body;
    expect(clock.now.slice(0, 10) >= created.nextChargeDate).toBe(true);
    await waitFor('the renewal', async () => (await recurringCharges(created.subscriptionId)) === 1);
    const after = expectStatus(
      await api.get(`/recurring/subscriptions/${created.subscriptionId}`, as(merchant)),
      200,
    ).body;
    expect(after.nextChargeDate > created.nextChargeDate).toBe(true);
  });

  it('is 404 for another merchant’s or an unknown subscription, 400 for a canceled one, in JSON and XML', async () => {
    const merchant = await stack.newMerchant();
    const created = await subscription(merchant);
    const other = await stack.newMerchant();
    const foreign = expectStatus(
      await api.get(`/subscriptions/${created.subscriptionId}/run-specific`, as(other)),
      404,
    );
    expect(foreign.body.message[0].errorName).toBe('SUBSCRIPTION_NOT_FOUND');
    const xml = expectStatus(
      await api.get('/subscriptions/999999999/run-specific', as(merchant, { accept: 'application/xml' })),
      404,
    );
    expect(xml.text).toContain('<error-name>SUBSCRIPTION_NOT_FOUND</error-name>');
    expectStatus(await api.get('/subscriptions/abc/run-specific', as(merchant)), 400);
    expectStatus(
      await api.put(
        `/recurring/subscriptions/${created.subscriptionId}`,
        { status: 'CANCELED' },
        as(merchant),
      ),
      200,
    );
    const canceled = expectStatus(
      await api.get(`/subscriptions/${created.subscriptionId}/run-specific`, as(merchant)),
      400,
    );
    expect(canceled.body.message[0].errorName).toBe('INVALID_STATUS');
    const clock = expectStatus(await api.get('/sandbox/clock', as(merchant)), 200).body;
    expect(Math.abs(clock.offsetSeconds)).toBeLessThan(5);
  });
});
