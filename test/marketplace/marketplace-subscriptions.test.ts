import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectedIban } from '../support/debits.ts';
import {
  as,
  type CallOptions,
  client,
  expectStatus,
  failure,
  saleBody,
  xmlDocument,
} from '../support/http.ts';
import { createVendor } from '../support/marketplace.ts';
import { createPlan, subscribe } from '../support/recurring.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Split subscriptions (docs/marketplace.md, Split payments): vendorInfo / vendorsInfo on a subscription (plan
// or merchant-managed) and on a merchant-managed charge, validated as a sale's split before anything is
// charged, shown on the subscription (JSON and XML), and recorded with every charge: the initial one, the
// renewal worker's (its batch path), a merchant-managed charge's, card and SEPA alike.
// ---------------------------------------------------------------------------------------------------------

const subscriptionXml: CallOptions = {
  format: 'xml',
  accept: 'application/xml',
  shape: { root: 'recurring-subscription' },
};

let stack: Stack;
let api: ReturnType<typeof client>;
let merchant: TestMerchant;
let cakes: number; // 30% in its agreement
let teas: number; // no commission in its agreement

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  merchant = await stack.newMerchant();
  cakes = await newVendor();
  teas = await newVendor({ vendorAgreement: undefined, email: 'teas@example.com' });
});

afterAll(async () => {
  await stack?.close();
});

const newVendor = (overrides: Record<string, unknown> = {}) => createVendor(api, merchant, overrides);

/** Each charge of the subscription, in order, with its payment's split as [vendor, share] pairs. */
async function chargeSplits(subscriptionId: number) {
  const { rows } = await stack.db.query(
    `select sc.kind, coalesce(sc.card_transaction_id, sc.sepa_debit_id)::text as payment,
            coalesce((select json_agg(json_build_array(s.vendor_id, s.share_minor::int) order by s.position)
                        from vendor_split s
                       where s.transaction_id = coalesce(sc.card_transaction_id, sc.sepa_debit_id)), '[]') as split
       from subscription_charge sc where sc.subscription_id = $1 and sc.status = 'CHARGED' order by sc.id`,
    [subscriptionId],
  );
  return rows.map((row) => ({ kind: row.kind, split: row.split }));
}

/** A merchant-managed subscription opened by a card charge of `amount` USD split with `vendorInfo`; its id. */
async function ondemand(amount: number, vendorInfo: Record<string, unknown>): Promise<number> {
  const body = {
    amount,
    currency: 'USD',
    payerInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139', country: 'us' },
    paymentSource: { creditCardInfo: { creditCard: saleBody().creditCard } },
    vendorInfo,
  };
  return expectStatus(await api.post('/recurring/ondemand', body, as(merchant)), 200).body.subscriptionId;
}

async function counts() {
  const { rows } = await stack.db.query(
    `select (select count(*) from subscription where merchant_id = $1)::int as subscriptions,
            (select count(*) from subscription_charge where merchant_id = $1)::int as charges,
            (select count(*) from vendor_split where merchant_id = $1)::int as splits`,
    [merchant.id],
  );
  return rows[0];
}

describe('a plan subscription split between vendors', () => {
  it('JSON vendorsInfo: shown on the subscription, split on its first charge and on the renewal worker’s', async () => {
    const planId = await createPlan(api, merchant, { recurringChargeAmount: 20, chargeFrequency: 'WEEKLY' });
    const vendorsInfo = {
      vendorInfo: [
        { vendorId: cakes, commissionPercent: 12.5 },
        { vendorId: teas, commissionAmount: 3 },
      ],
    };
    const created = await subscribe(api, merchant, planId, { vendorsInfo });
    const id = created.subscriptionId;
    expect(created.vendorsInfo).toEqual(vendorsInfo);
    expect(
      expectStatus(await api.get(`/recurring/subscriptions/${id}`, as(merchant)), 200).body.vendorsInfo,
    ).toEqual(vendorsInfo);
    expect(await chargeSplits(id)).toEqual([
      {
        kind: 'INITIAL',
        split: [
          [cakes, 250],
          [teas, 300],
        ],
      },
    ]);

    // New terms for the charges to come: the renewal worker's batch charges by them.
    const updated = expectStatus(
      await api.put(
        `/recurring/subscriptions/${id}`,
        { vendorInfo: { vendorId: cakes, commissionAmount: 5 } },
        as(merchant),
      ),
      200,
    );
    expect(updated.body.vendorInfo).toEqual({ vendorId: cakes, commissionAmount: 5 });
    expect(updated.body).not.toHaveProperty('vendorsInfo');
    expectStatus(await api.put('/sandbox/clock', { advanceBy: 'P8D' }, as(merchant)), 200);
    const renewed = await waitFor('the first renewal', async () => {
      const splits = await chargeSplits(id);
      return splits.length === 2 && splits;
    });
    expect(renewed[1]).toEqual({ kind: 'RECURRING', split: [[cakes, 500]] });
  });

  it('XML vendor-info after soft-descriptor (the schema’s order), on create and retrieve', async () => {
    const planId = await createPlan(api, merchant, { recurringChargeAmount: 40 });
    const request = xmlDocument('recurring-subscription', {
      planId,
      softDescriptor: 'CAKES',
      vendorInfo: { vendorId: cakes },
      payerInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139', country: 'us' },
      paymentSource: { creditCardInfo: { creditCard: saleBody().creditCard } },
    });
    const created = expectStatus(
      await api.post('/recurring/subscriptions', request, as(merchant, subscriptionXml)),
      200,
    );
    expect(created.text).toContain(
      '<soft-descriptor>CAKES</soft-descriptor>' +
        `<vendor-info><vendor-id>${cakes}</vendor-id><commission-percent>30</commission-percent></vendor-info>`,
    );
    const id = created.body.subscriptionId;
    expect(await chargeSplits(Number(id))).toEqual([{ kind: 'INITIAL', split: [[cakes, 1200]] }]);
    const read = expectStatus(
      await api.get(`/recurring/subscriptions/${id}`, as(merchant, subscriptionXml)),
      200,
    );
    expect(read.text).toContain(`<vendor-info><vendor-id>${cakes}</vendor-id>`);
  });

  it('a SEPA subscription splits its debit', async () => {
    const planId = await createPlan(api, merchant, { currency: 'EUR', recurringChargeAmount: 10 });
    const created = await subscribe(api, merchant, planId, {
      paymentSource: { sepaDirectDebitInfo: { sepaDirectDebit: { iban: collectedIban } } },
      authorizedByShopper: true,
      vendorInfo: { vendorId: teas, commissionPercent: 10 },
    });
    expect(await chargeSplits(created.subscriptionId)).toEqual([{ kind: 'INITIAL', split: [[teas, 100]] }]);
  });
});

describe('a merchant-managed subscription split between vendors', () => {
  it('the first charge by the subscription’s terms, a later one by its own vendorsInfo or the subscription’s', async () => {
    const id = await ondemand(50, { vendorId: cakes, commissionPercent: 10 });
    const own = { vendorsInfo: { vendorInfo: [{ vendorId: teas, commissionAmount: 2 }] } };
    expectStatus(
      await api.post(`/recurring/ondemand/${id}`, { amount: 8, currency: 'USD', ...own }, as(merchant)),
      200,
    );
    expectStatus(
      await api.post(`/recurring/ondemand/${id}`, { amount: 30, currency: 'USD' }, as(merchant)),
      200,
    );
    expect(await chargeSplits(id)).toEqual([
      { kind: 'INITIAL', split: [[cakes, 500]] },
      { kind: 'MERCHANT', split: [[teas, 200]] },
      { kind: 'MERCHANT', split: [[cakes, 300]] },
    ]);
    const shown = expectStatus(await api.get(`/recurring/ondemand/${id}`, as(merchant)), 200);
    expect(shown.body.vendorInfo).toEqual({ vendorId: cakes, commissionPercent: 10 });
  });
});

describe('bad splits on subscriptions: the sale errors, nothing charged or written', () => {
  let planId: number;
  let inactive: number;
  beforeAll(async () => {
    planId = await createPlan(api, merchant, { recurringChargeAmount: 10 });
    inactive = await newVendor({ vendorAgreement: { commissionPercent: 5, accountStatus: 'INACTIVE' } });
  });

  const body = (split: Record<string, unknown>) => ({
    planId,
    payerInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139', country: 'us' },
    paymentSource: { creditCardInfo: { creditCard: saleBody().creditCard } },
    ...split,
  });

  it.each([
    ['an unknown vendor', () => ({ vendorInfo: { vendorId: 999999 } }), 20050, 'vendorInfo.vendorId'],
    ['an inactive vendor', () => ({ vendorInfo: { vendorId: inactive } }), 20052, 'vendorInfo.vendorId'],
    [
      'an amount over the renewals’ 10.00',
      () => ({ vendorInfo: { vendorId: cakes, commissionAmount: 10.01 } }),
      14037,
      'vendorInfo',
    ],
    [
      'both forms',
      () => ({ vendorInfo: { vendorId: cakes }, vendorsInfo: { vendorInfo: [{ vendorId: cakes }] } }),
      10001,
      'vendorsInfo',
    ],
  ])('create with %s', async (_name, split, code, property) => {
    const before = await counts();
    const reply = await api.post('/recurring/subscriptions', body(split()), as(merchant));
    expect(failure(reply)).toMatchObject({ status: 400, code, property });
    expect(await counts()).toEqual(before);
  });

  it('in XML too, as <messages>', async () => {
    const request = xmlDocument('recurring-subscription', body({ vendorInfo: { vendorId: inactive } }));
    const reply = await api.post('/recurring/subscriptions', request, as(merchant, subscriptionXml));
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('<error-name>INACTIVE_VENDOR</error-name><code>20052</code>');
  });

  it('an update whose terms exceed the renewals, and a merchant-managed charge smaller than its vendors’ amounts', async () => {
    const subscription = await subscribe(api, merchant, planId, {
      vendorInfo: { vendorId: cakes, commissionAmount: 4 },
    });
    const update = await api.put(
      `/recurring/subscriptions/${subscription.subscriptionId}`,
      { quantity: 2, vendorInfo: { vendorId: cakes, commissionAmount: 20.01 } },
      as(merchant),
    );
    expect(failure(update)).toMatchObject({ status: 400, code: 14037, property: 'vendorInfo' });
    const kept = expectStatus(
      await api.get(`/recurring/subscriptions/${subscription.subscriptionId}`, as(merchant)),
      200,
    );
    expect(kept.body).toMatchObject({ quantity: 1, vendorInfo: { vendorId: cakes, commissionAmount: 4 } });

    const id = await ondemand(10, { vendorId: cakes, commissionAmount: 4 });
    const before = await counts();
    const small = await api.post(
      `/recurring/ondemand/${id}`,
      { amount: 3.99, currency: 'USD' },
      as(merchant),
    );
    expect(failure(small)).toMatchObject({ status: 400, code: 14037, property: 'vendorInfo' });
    expect(await counts()).toEqual(before);
  });
});
