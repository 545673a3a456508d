import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type CallOptions, client, expectStatus, type Reply, xmlDocument } from './support/http.ts';
import { type Stack, startStack, type TestMerchant } from './support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// Recurring billing's API (README, Recurring billing): plans, subscriptions, merchant-managed subscriptions
// and their charges, JSON and XML, every error path, over real HTTP against real PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

const xml = (root: string, list?: string): CallOptions => ({
  format: 'xml',
  accept: 'application/xml',
  shape: list ? { root, repeated: [root], elementNames: { [root]: list } } : { root },
});
const planXml = xml('plan');

let stack: Stack;
let api: ReturnType<typeof client>;
let db: pg.Pool;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  db = stack.db;
});

afterAll(async () => {
  await stack?.close();
});

const keyed = (options: CallOptions = {}): CallOptions => ({
  ...options,
  headers: { ...options.headers, 'idempotency-key': randomUUID() },
});

const planBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Gold Plan',
  currency: 'USD',
  recurringChargeAmount: 29.99,
  chargeFrequency: 'MONTHLY',
  ...overrides,
});

/** The single error of a failed call: its status, name, code and invalid property. */
function failure(reply: Reply) {
  const [message] = reply.body.message as Array<Record<string, unknown>>;
  return {
    status: reply.status,
    errorName: message?.errorName,
    code: Number(message?.code),
    property: (message?.invalidProperty as { name?: string } | undefined)?.name,
  };
}

async function newPlan(overrides: Record<string, unknown> = {}, merchant?: TestMerchant): Promise<number> {
  const reply = await api.post('/recurring/plans', planBody(overrides), merchant ? as(merchant) : {});
  expectStatus(reply, 200);
  return reply.body.planId as number;
}

async function rowCount(table: string, merchant: TestMerchant = stack.merchant): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from ${table} where merchant_id = $1`,
    [merchant.id],
  );
  return rows[0]?.n ?? Number.NaN;
}

describe('plans', () => {
  it('JSON: creates a plan with every field and reads it back', async () => {
    const created = await api.post(
      '/recurring/plans',
      planBody({
        trialPeriodDays: 14,
        initialChargeAmount: '5',
        maxNumberOfCharges: 12,
        gracePeriodDays: 5,
        chargeOnPlanSwitch: true,
      }),
    );
    expectStatus(created, 200);
    const plan = {
      planId: created.body.planId,
      name: 'Gold Plan',
      currency: 'USD',
      recurringChargeAmount: 29.99,
      chargeFrequency: 'MONTHLY',
      trialPeriodDays: 14,
      initialChargeAmount: 5,
      maxNumberOfCharges: 12,
      gracePeriodDays: 5,
      chargeOnPlanSwitch: true,
      status: 'ACTIVE',
    };
    expect(created.body).toEqual(plan);
    expect(created.body.planId).toBeGreaterThan(0);
    const read = await api.get(`/recurring/plans/${plan.planId}`);
    expectStatus(read, 200);
    expect(read.body).toEqual(plan);
  });

  it('XML: root plan, kebab-case elements, money with the currency decimals', async () => {
    const created = await api.post(
      '/recurring/plans',
      xmlDocument('plan', {
        name: 'Silver',
        currency: 'EUR',
        recurringChargeAmount: '10',
        chargeFrequency: 'EVERY 2 WEEKS',
        initialChargeAmount: '0',
      }),
      planXml,
    );
    expectStatus(created, 200);
    expect(created.text).toContain('<plan xmlns="http://ws.plimus.com">');
    expect(created.text).toContain('<recurring-charge-amount>10.00</recurring-charge-amount>');
    expect(created.text).toContain('<initial-charge-amount>0.00</initial-charge-amount>');
    expect(created.text).toContain('<charge-frequency>EVERY 2 WEEKS</charge-frequency>');
    const read = await api.get(`/recurring/plans/${created.body.planId}`, planXml);
    expect(read.body).toMatchObject({ name: 'Silver', chargeOnPlanSwitch: 'false', status: 'ACTIVE' });
  });

  it('refuses each bad field with its error and the property, writing nothing', async () => {
    const before = await rowCount('recurring_plan');
    const cases: Array<[Record<string, unknown>, string, string, number]> = [
      [{ name: 'x'.repeat(200) }, 'name', 'VALIDATION_GENERAL_FAILURE', 400],
      [{ name: undefined }, 'name', 'VALIDATION_GENERAL_FAILURE', 400],
      [{ currency: 'XXX' }, 'currency', 'VALIDATION_GENERAL_FAILURE', 400],
      [{ recurringChargeAmount: 0 }, 'recurringChargeAmount', 'VALIDATION_GENERAL_FAILURE', 400],
      [
        { recurringChargeAmount: '1.234' },
        'recurringChargeAmount',
        'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS',
        400,
      ],
      [{ chargeFrequency: 'HOURLY' }, 'chargeFrequency', 'VALIDATION_GENERAL_FAILURE', 400],
      [{ trialPeriodDays: -1 }, 'trialPeriodDays', 'VALIDATION_GENERAL_FAILURE', 400],
      [{ trialPeriodDays: 1.5 }, 'trialPeriodDays', 'VALIDATION_GENERAL_FAILURE', 400],
      [{ maxNumberOfCharges: 0 }, 'maxNumberOfCharges', 'VALIDATION_GENERAL_FAILURE', 400],
      [{ gracePeriodDays: 31 }, 'gracePeriodDays', 'VALIDATION_GENERAL_FAILURE', 400],
      [{ initialChargeAmount: -1 }, 'initialChargeAmount', 'VALIDATION_GENERAL_FAILURE', 400],
      [{ chargeOnPlanSwitch: 'maybe' }, 'chargeOnPlanSwitch', 'VALIDATION_GENERAL_FAILURE', 400],
      [{ status: 'INACTIVE' }, 'status', 'CANNOT_CREATE_INACTIVE_PLAN', 400],
    ];
    for (const [overrides, property, errorName, status] of cases) {
      const reply = await api.post('/recurring/plans', planBody(overrides));
      expect(failure(reply), JSON.stringify(overrides)).toMatchObject({ status, errorName, property });
    }
    const badXml = await api.post('/recurring/plans', xmlDocument('plan', { name: 'x' }), planXml);
    expect(badXml.status).toBe(400);
    expect(badXml.text).toContain('<error-name>VALIDATION_GENERAL_FAILURE</error-name>');
    expect(await rowCount('recurring_plan')).toBe(before);
  });

  it('updates by the reference rules: what may change changes, the rest is refused', async () => {
    const planId = await newPlan({ trialPeriodDays: 7 });
    const updated = await api.put(`/recurring/plans/${planId}`, {
      name: 'Gold Plus',
      recurringChargeAmount: '39.5',
      trialPeriodDays: 10,
      maxNumberOfCharges: 3,
      gracePeriodDays: 2,
      chargeOnPlanSwitch: true,
      status: 'INACTIVE',
    });
    expectStatus(updated, 200);
    expect(updated.body).toMatchObject({
      planId,
      name: 'Gold Plus',
      recurringChargeAmount: 39.5,
      trialPeriodDays: 10,
      maxNumberOfCharges: 3,
      gracePeriodDays: 2,
      chargeOnPlanSwitch: true,
      status: 'INACTIVE',
    });
    const refused: Array<[Record<string, unknown>, string, string]> = [
      [{ currency: 'EUR' }, 'currency', 'NON_UPDATABLE_FIELD'],
      [{ chargeFrequency: 'WEEKLY' }, 'chargeFrequency', 'NON_UPDATABLE_FIELD'],
      [{ initialChargeAmount: 3 }, 'initialChargeAmount', 'CANNOT_ADD_ELEMENT'],
      [{ trialPeriodDays: 0 }, 'trialPeriodDays', 'CANNOT_DELETE_ELEMENT'],
      [
        { recurringChargeAmount: '1.001' },
        'recurringChargeAmount',
        'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS',
      ],
      [{ status: 'GONE' }, 'status', 'VALIDATION_GENERAL_FAILURE'],
    ];
    for (const [body, property, errorName] of refused) {
      const reply = await api.put(`/recurring/plans/${planId}`, body);
      expect(failure(reply), JSON.stringify(body)).toMatchObject({ status: 400, errorName, property });
    }
    const noTrial = await newPlan();
    const addTrial = await api.put(`/recurring/plans/${noTrial}`, { trialPeriodDays: 5 });
    expect(failure(addTrial)).toMatchObject({ errorName: 'CANNOT_ADD_ELEMENT', property: 'trialPeriodDays' });
    // XML update
    const xml = await api.put(
      `/recurring/plans/${planId}`,
      xmlDocument('plan', { name: 'Gold XML' }),
      planXml,
    );
    expectStatus(xml, 200);
    expect(xml.body.name).toBe('Gold XML');
  });

  it('is invisible to another merchant, and an unknown id is 404', async () => {
    const planId = await newPlan();
    const other = await stack.newMerchant();
    for (const reply of [
      await api.get(`/recurring/plans/${planId}`, as(other)),
      await api.put(`/recurring/plans/${planId}`, { name: 'stolen' }, as(other)),
      await api.get('/recurring/plans/999999999'),
    ]) {
      expect(failure(reply)).toMatchObject({ status: 404, errorName: 'PLAN_NOT_FOUND' });
    }
    expect((await api.get('/recurring/plans/abc')).status).toBe(400);
    const list = await api.get('/recurring/plans?gettotal=true', as(other));
    expect(list.body).toEqual({ totalResults: 0, lastPage: true, plans: [] });
  });

  it('lists newest first with the reference paging: pagesize, after, before, gettotal, fulldescription, status', async () => {
    const merchant = await stack.newMerchant();
    const ids: number[] = [];
    for (let n = 0; n < 5; n += 1) ids.push(await newPlan({ name: `Plan ${n}` }, merchant));
    const [p0, p1, p2, p3, p4] = ids as [number, number, number, number, number];
    await api.put(`/recurring/plans/${p1}`, { status: 'INACTIVE' }, as(merchant));

    const first = await api.get('/recurring/plans?pagesize=2&gettotal=true', as(merchant));
    expectStatus(first, 200);
    expect(first.body.totalResults).toBe(5);
    expect(first.body.lastPage).toBe(false);
    expect(first.body.plans.map((plan: { planId: number }) => plan.planId)).toEqual([p4, p3]);
    expect(first.body.plans[0]).toMatchObject({ name: 'Plan 4', recurringChargeAmount: 29.99 });

    const next = await api.get(`/recurring/plans?pagesize=2&after=${p3}`, as(merchant));
    expect(next.body.plans.map((plan: { planId: number }) => plan.planId)).toEqual([p2, p1]);
    expect(next.body.totalResults).toBeUndefined();
    const last = await api.get(`/recurring/plans?pagesize=2&after=${p1}`, as(merchant));
    expect(last.body).toMatchObject({ lastPage: true });
    expect(last.body.plans.map((plan: { planId: number }) => plan.planId)).toEqual([p0]);
    const back = await api.get(`/recurring/plans?pagesize=2&before=${p1}`, as(merchant));
    expect(back.body.plans.map((plan: { planId: number }) => plan.planId)).toEqual([p3, p2]);

    const brief = await api.get('/recurring/plans?fulldescription=false&pagesize=1', as(merchant));
    expect(brief.body.plans).toEqual([{ planId: p4, name: 'Plan 4' }]);
    const inactive = await api.get('/recurring/plans?status=INACTIVE', as(merchant));
    expect(inactive.body.plans.map((plan: { planId: number }) => plan.planId)).toEqual([p1]);
    expect((await api.get('/recurring/plans', as(merchant))).body.plans).toHaveLength(5);

    const listed = await api.get(
      '/recurring/plans?pagesize=2&gettotal=true',
      as(merchant, xml('plans', 'plan')),
    );
    expect(listed.text).toMatch(
      /^<\?xml[^>]*\?>\s*<plans xmlns="http:\/\/ws.plimus.com"><total-results>5<\/total-results><last-page>false<\/last-page><plan><plan-id>/,
    );
    expect(listed.body.plans).toHaveLength(2);

    for (const [query, errorName] of [
      ['pagesize=501', 'MAX_PAGE_SIZE_EXCEEDED'],
      ['pagesize=-1', 'NEGATIVE_PAGE_SIZE'],
      ['pagesize=0', 'NEGATIVE_PAGE_SIZE'],
      ['pagesize=ten', 'VALIDATION_GENERAL_FAILURE'],
      ['after=x', 'VALIDATION_GENERAL_FAILURE'],
      [`after=${p1}&before=${p3}`, 'VALIDATION_GENERAL_FAILURE'],
      ['status=DELETED', 'VALIDATION_GENERAL_FAILURE'],
      ['gettotal=yes', 'VALIDATION_GENERAL_FAILURE'],
    ] as const) {
      const reply = await api.get(`/recurring/plans?${query}`, as(merchant));
      expect(failure(reply), query).toMatchObject({ status: 400, errorName });
    }
    expect((await api.get('/recurring/plans?pagesize=500', as(merchant))).status).toBe(200);
  });

  it('a keyed POST runs once: a retry answers the first plan', async () => {
    const options = keyed();
    const first = await api.post('/recurring/plans', planBody({ name: 'Once' }), options);
    const again = await api.post('/recurring/plans', planBody({ name: 'Once' }), options);
    expectStatus(first, 200);
    expect(again.body).toEqual(first.body);
    const { rows } = await db.query("select count(*)::int as n from recurring_plan where name = 'Once'");
    expect(rows[0].n).toBe(1);
    const different = await api.post('/recurring/plans', planBody({ name: 'Twice' }), options);
    expect(failure(different)).toMatchObject({ status: 422 });
  });
});

const card = {
  cardNumber: '4263982640269299',
  securityCode: '837',
  expirationMonth: '02',
  expirationYear: '2031',
};
const payerInfo = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  country: 'us',
  zip: '02139',
};
const cardSource = (overrides: Record<string, unknown> = {}) => ({
  creditCardInfo: { creditCard: { ...card, ...overrides } },
});
const IBAN = 'DE89370400440532013000';

async function today(merchant?: TestMerchant): Promise<string> {
  const clock = await api.get('/sandbox/clock', merchant ? as(merchant) : {});
  return String(clock.body.now).slice(0, 10);
}

function plusMonths(date: string, months: number): string {
  const day = new Date(`${date}T00:00:00Z`);
  const target = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day.getUTCDate(), last));
  return target.toISOString().slice(0, 10);
}

function plusDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

async function subscribe(body: Record<string, unknown>, options: CallOptions = {}): Promise<Reply> {
  return api.post('/recurring/subscriptions', body, keyed(options));
}

describe('subscriptions', () => {
  it('new shopper with a card: the initial charge is a sale of the shopper, the next charge a month on', async () => {
    const planId = await newPlan({ recurringChargeAmount: 20, initialChargeAmount: 7.5 });
    const created = await subscribe({ planId, payerInfo, paymentSource: cardSource(), quantity: 2 });
    expectStatus(created, 200);
    const body = created.body;
    expect(body).toMatchObject({
      planId,
      status: 'ACTIVE',
      quantity: 2,
      chargeFrequency: 'MONTHLY',
      recurringChargeAmount: 20,
      initialChargeAmount: 7.5,
      currency: 'USD',
      autoRenew: true,
      nextChargeDate: plusMonths(await today(), 1),
      paymentSource: { creditCardInfo: { creditCard: { cardLastFourDigits: '9299', cardType: 'VISA' } } },
      charge: {
        subscriptionId: body.subscriptionId,
        planId,
        vaultedShopperId: body.vaultedShopperId,
        amount: 7.5,
        currency: 'USD',
        chargeInfo: { chargeType: 'INITIAL' },
        processingInfo: { processingStatus: 'success' },
      },
    });
    expect(created.headers.get('location')).toBe(
      `${stack.baseUrl}/recurring/subscriptions/${body.subscriptionId}`,
    );
    const sale = await api.get(`/transactions/${body.charge.transactionId}`);
    expectStatus(sale, 200);
    expect(sale.body).toMatchObject({ amount: 7.5, vaultedShopperId: body.vaultedShopperId });
    const shopper = await api.get(`/vaulted-shoppers/${body.vaultedShopperId}`);
    expect(shopper.body).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
    const read = await api.get(`/recurring/subscriptions/${body.subscriptionId}`);
    const { charge: _, ...subscription } = body;
    expect(read.body).toEqual(subscription);
    expect(JSON.stringify(await db.query('select * from subscription'))).not.toContain('4263982640269299');
  });

  it('XML: root subscription in and out, money with the currency decimals', async () => {
    const planId = await newPlan({ currency: 'EUR', recurringChargeAmount: 9 });
    const created = await api.post(
      '/recurring/subscriptions',
      xmlDocument('subscription', {
        planId,
        payerInfo: { firstName: 'Grace', lastName: 'Hopper' },
        paymentSource: { creditCardInfo: { creditCard: card } },
      }),
      keyed(xml('subscription')),
    );
    expectStatus(created, 200);
    expect(created.text).toContain('<subscription xmlns="http://ws.plimus.com">');
    expect(created.text).toContain('<recurring-charge-amount>9.00</recurring-charge-amount>');
    expect(created.text).toContain('<charge-type>INITIAL</charge-type>');
    expect(created.body).toMatchObject({ status: 'ACTIVE', charge: { amount: '9.00' } });
    const read = await api.get(
      `/recurring/subscriptions/${created.body.subscriptionId}`,
      xml('subscription'),
    );
    expect(read.body).toMatchObject({ planId: String(planId), currency: 'EUR' });
  });

  it('a trial charges nothing; the first charge falls due when the trial ends', async () => {
    const planId = await newPlan({ trialPeriodDays: 14 });
    const sales = await rowCount('card_transaction');
    const created = await subscribe({ planId, payerInfo, paymentSource: cardSource() });
    expectStatus(created, 200);
    expect(created.body.charge).toBeUndefined();
    expect(created.body).toMatchObject({ trialPeriodDays: 14, nextChargeDate: plusDays(await today(), 14) });
    expect(await rowCount('card_transaction')).toBe(sales);
    const override = await subscribe({
      planId,
      payerInfo,
      paymentSource: cardSource(),
      overrideTrialPeriodDays: 3,
    });
    expect(override.body).toMatchObject({
      overrideTrialPeriodDays: 3,
      nextChargeDate: plusDays(await today(), 3),
    });
    // 0 is ignored: the plan's trial applies
    const zero = await subscribe({
      planId,
      payerInfo,
      paymentSource: cardSource(),
      overrideTrialPeriodDays: 0,
    });
    expect(zero.body.nextChargeDate).toBe(plusDays(await today(), 14));
  });

  it('a declined initial charge answers the decline and leaves no subscription', async () => {
    const planId = await newPlan();
    const before = await rowCount('subscription');
    const declined = await subscribe({
      planId,
      payerInfo,
      paymentSource: cardSource({ cardNumber: '4917484589897107', securityCode: '123' }),
    });
    expect(failure(declined)).toMatchObject({ status: 400, errorName: 'DO_NOT_HONOR', code: 14002 });
    expect(await rowCount('subscription')).toBe(before);
  });

  it('a vaulted shopper is charged from its card; a SEPA subscription debits with a mandate', async () => {
    const planId = await newPlan({ recurringChargeAmount: 12 });
    const first = await subscribe({ planId, payerInfo, paymentSource: cardSource() });
    const vaultedShopperId = first.body.vaultedShopperId;
    const second = await subscribe({ planId, vaultedShopperId });
    expectStatus(second, 200);
    expect(second.body).toMatchObject({ vaultedShopperId, charge: { amount: 12 } });

    const euroPlan = await newPlan({ currency: 'EUR', recurringChargeAmount: 15 });
    const sepa = await subscribe({
      planId: euroPlan,
      payerInfo,
      paymentSource: { sepaDirectDebitInfo: { iban: IBAN } },
      authorizedByShopper: true,
    });
    expectStatus(sepa, 200);
    expect(sepa.body).toMatchObject({
      paymentSource: { sepaDirectDebitInfo: { ibanFirstFour: 'DE89', ibanLastFour: '3000' } },
      charge: { amount: 15, currency: 'EUR', processingInfo: { processingStatus: 'pending' } },
    });
    expect(sepa.headers.get('location')).toBeNull();
    const debit = await api.get(`/alt-transactions/${sepa.body.charge.transactionId}`);
    expect(debit.body).toMatchObject({ amount: 15, vaultedShopperId: sepa.body.vaultedShopperId });
    expect(stack.logs.join('\n')).not.toContain(IBAN);

    const noMandate = await subscribe({
      planId: euroPlan,
      payerInfo,
      paymentSource: { sepaDirectDebitInfo: { iban: IBAN } },
    });
    expect(failure(noMandate)).toMatchObject({ status: 400, property: 'authorizedByShopper' });
    const dollars = await subscribe({
      planId,
      payerInfo,
      paymentSource: { sepaDirectDebitInfo: { iban: IBAN } },
      authorizedByShopper: true,
    });
    expect(failure(dollars)).toMatchObject({ status: 400, property: 'currency' });
  });

  it('refuses each bad request with its error, and nothing is written', async () => {
    const planId = await newPlan();
    const inactive = await newPlan();
    await api.put(`/recurring/plans/${inactive}`, { status: 'INACTIVE' });
    const before = await rowCount('subscription');
    const cases: Array<[Record<string, unknown>, number, string, string?]> = [
      [{ payerInfo, paymentSource: cardSource() }, 400, 'VALIDATION_GENERAL_FAILURE', 'planId'],
      [{ planId: 999999999, payerInfo, paymentSource: cardSource() }, 404, 'PLAN_NOT_FOUND', 'planId'],
      [{ planId: inactive, payerInfo, paymentSource: cardSource() }, 400, 'INVALID_STATUS', 'planId'],
      [{ planId, paymentSource: cardSource() }, 400, 'VALIDATION_GENERAL_FAILURE', 'payerInfo'],
      [{ planId, payerInfo }, 400, 'VALIDATION_GENERAL_FAILURE', 'paymentSource'],
      [
        { planId, payerInfo, vaultedShopperId: 1, paymentSource: cardSource() },
        400,
        'VALIDATION_GENERAL_FAILURE',
        'payerInfo',
      ],
      [{ planId, vaultedShopperId: 999999 }, 404, 'SHOPPER_NOT_FOUND', 'vaultedShopperId'],
      [
        {
          planId,
          payerInfo,
          paymentSource: { wallet: { walletType: 'GOOGLE_PAY', encodedPaymentToken: 'x' } },
        },
        400,
        'VALIDATION_GENERAL_FAILURE',
        'paymentSource.wallet',
      ],
      [
        { planId, payerInfo, paymentSource: cardSource({ cardNumber: '4263982640269290' }) },
        400,
        'VALIDATION_GENERAL_FAILURE',
        'paymentSource.creditCardInfo.creditCard.cardNumber',
      ],
      [
        { planId, payerInfo, paymentSource: cardSource(), quantity: 0 },
        400,
        'VALIDATION_GENERAL_FAILURE',
        'quantity',
      ],
      [
        { planId, payerInfo, paymentSource: cardSource(), overrideRecurringChargeAmount: '1.001' },
        400,
        'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS',
        'overrideRecurringChargeAmount',
      ],
      [
        { planId, payerInfo, paymentSource: cardSource(), softDescriptor: 'x'.repeat(21) },
        400,
        'VALIDATION_GENERAL_FAILURE',
        'softDescriptor',
      ],
      [
        { planId, payerInfo, paymentSource: { creditCardInfo: { pfToken: 'nope' } } },
        400,
        'INVALID_PAYMENT_DETAILS',
      ],
    ];
    for (const [body, status, errorName, property] of cases) {
      const reply = await subscribe(body);
      expect(failure(reply), JSON.stringify(body)).toMatchObject({
        status,
        errorName,
        ...(property ? { property } : {}),
      });
      expect(reply.text).not.toContain('4263982640269290');
    }
    expect(await rowCount('subscription')).toBe(before);
  });

  it('a keyed POST runs once: a retry answers the first subscription and charges nothing more', async () => {
    const planId = await newPlan();
    const options = keyed();
    const sales = await rowCount('card_transaction');
    const first = await api.post(
      '/recurring/subscriptions',
      { planId, payerInfo, paymentSource: cardSource() },
      options,
    );
    const again = await api.post(
      '/recurring/subscriptions',
      { planId, payerInfo, paymentSource: cardSource() },
      options,
    );
    expectStatus(first, 200);
    expect(again.body).toEqual(first.body);
    expect(await rowCount('card_transaction')).toBe(sales + 1);
  });

  it("is the merchant's own: another merchant gets 404 on every route and sees none in lists", async () => {
    const planId = await newPlan();
    const { body } = await subscribe({ planId, payerInfo, paymentSource: cardSource() });
    const other = await stack.newMerchant();
    const id = body.subscriptionId;
    for (const reply of [
      await api.get(`/recurring/subscriptions/${id}`, as(other)),
      await api.put(`/recurring/subscriptions/${id}`, { status: 'CANCELED' }, as(other)),
      await api.get(`/recurring/subscriptions/${id}/charges`, as(other)),
      await api.get(`/recurring/subscriptions/${id}/switch-charge-amount?newplanid=${planId}`, as(other)),
      await api.post(
        `/subscriptions/${id}/subscription-charges`,
        { chargeInfo: { chargeDescription: 'x' } },
        as(other),
      ),
    ]) {
      expect(failure(reply)).toMatchObject({ status: 404, errorName: 'SUBSCRIPTION_NOT_FOUND' });
    }
    const resolve = await api.get(
      `/recurring/subscriptions/charges/resolve?transactionid=${body.charge.transactionId}`,
      as(other),
    );
    expect(failure(resolve)).toMatchObject({ status: 404, errorName: 'SUBSCRIPTION_CHARGE_NOT_FOUND' });
    expect((await api.get('/recurring/subscriptions?gettotal=true', as(other))).body).toEqual({
      totalResults: 0,
      lastPage: true,
      subscriptions: [],
    });
    expect((await api.get(`/recurring/subscriptions/${id}`)).status).toBe(200);
  });

  it('lists by status, plan and shopper, newest first, with paging', async () => {
    const merchant = await stack.newMerchant();
    const planA = await newPlan({}, merchant);
    const planB = await newPlan({}, merchant);
    const a1 = await subscribe({ planId: planA, payerInfo, paymentSource: cardSource() }, as(merchant));
    const shopper = a1.body.vaultedShopperId;
    const a2 = await subscribe({ planId: planA, vaultedShopperId: shopper }, as(merchant));
    const b1 = await subscribe({ planId: planB, payerInfo, paymentSource: cardSource() }, as(merchant));
    await api.put(`/recurring/subscriptions/${a2.body.subscriptionId}`, { status: 'CANCELED' }, as(merchant));
    const ids = (reply: Reply) =>
      reply.body.subscriptions.map((s: { subscriptionId: number }) => s.subscriptionId);
    const all = await api.get('/recurring/subscriptions?gettotal=true', as(merchant));
    expect(ids(all)).toEqual([b1.body.subscriptionId, a2.body.subscriptionId, a1.body.subscriptionId]);
    expect(all.body.totalResults).toBe(3);
    expect(ids(await api.get(`/recurring/subscriptions?planid=${planA}`, as(merchant)))).toEqual([
      a2.body.subscriptionId,
      a1.body.subscriptionId,
    ]);
    expect(ids(await api.get('/recurring/subscriptions?status=CANCELED', as(merchant)))).toEqual([
      a2.body.subscriptionId,
    ]);
    expect(
      ids(await api.get(`/recurring/subscriptions?vaultedshopperid=${shopper}&status=ACTIVE`, as(merchant))),
    ).toEqual([a1.body.subscriptionId]);
    const page = await api.get(
      `/recurring/subscriptions?pagesize=1&after=${b1.body.subscriptionId}`,
      as(merchant),
    );
    expect(ids(page)).toEqual([a2.body.subscriptionId]);
    expect(page.body.lastPage).toBe(false);
    const brief = await api.get('/recurring/subscriptions?fulldescription=false&pagesize=1', as(merchant));
    expect(brief.body.subscriptions).toEqual([{ subscriptionId: b1.body.subscriptionId, status: 'ACTIVE' }]);
    const listed = await api.get(
      '/recurring/subscriptions?pagesize=2',
      as(merchant, xml('subscriptions', 'subscription')),
    );
    expect(listed.text).toContain(
      '<subscriptions xmlns="http://ws.plimus.com"><last-page>false</last-page><subscription>',
    );
    for (const query of ['status=PAUSED', 'planid=x', 'pagesize=501', 'vaultedshopperid=-2']) {
      expect((await api.get(`/recurring/subscriptions?${query}`, as(merchant))).status, query).toBe(400);
    }
  });
});
