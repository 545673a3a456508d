import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantContext } from '../../apps/core/src/context.ts';
import { chargeReference, chargeSubscription } from '../../apps/core/src/recurring/charge.ts';
import {
  as,
  type CallOptions,
  client,
  expectStatus,
  failure,
  type Reply,
  xmlDocument,
} from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

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
let receiver: IpnReceiver;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  api = client(stack);
  db = stack.db;
});

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
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
    // The reference's Update Plan sends the recurring amount, currency and frequency unchanged.
    const updated = await api.put(`/recurring/plans/${planId}`, {
      name: 'Gold Plus',
      recurringChargeAmount: '29.99',
      currency: 'USD',
      chargeFrequency: 'MONTHLY',
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
      recurringChargeAmount: 29.99,
      trialPeriodDays: 10,
      maxNumberOfCharges: 3,
      gracePeriodDays: 2,
      chargeOnPlanSwitch: true,
      status: 'INACTIVE',
    });
    const refused: Array<[Record<string, unknown>, string, string]> = [
      [{ recurringChargeAmount: '39.5' }, 'recurringChargeAmount', 'NON_UPDATABLE_FIELD'],
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
      xmlDocument('recurring-subscription', {
        planId,
        payerInfo: { firstName: 'Grace', lastName: 'Hopper' },
        paymentSource: { creditCardInfo: { creditCard: card } },
      }),
      keyed(xml('recurring-subscription')),
    );
    expectStatus(created, 200);
    expect(created.text).toContain('<recurring-subscription xmlns="http://ws.plimus.com">');
    expect(created.text).toContain('<recurring-charge-amount>9.00</recurring-charge-amount>');
    expect(created.text).toContain('<charge-type>initial</charge-type>');
    expect(created.body).toMatchObject({ status: 'ACTIVE', charge: { amount: '9.00' } });
    const read = await api.get(
      `/recurring/subscriptions/${created.body.subscriptionId}`,
      xml('recurring-subscription'),
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
    // The card was checked with an authorization of zero, nothing captured.
    expect(await rowCount('card_transaction')).toBe(sales + 1);
    const { rows } = await db.query(
      'select type, amount_minor::int as amount, captured_minor::int as captured from card_transaction where merchant_id = $1 order by id desc limit 1',
      [stack.merchant.id],
    );
    expect(rows).toEqual([{ type: 'AUTH_ONLY', amount: 0, captured: 0 }]);
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
    // The reference's nesting (sepaDirectDebitInfo.sepaDirectDebit.iban); the flat form below is read too.
    const sepa = await subscribe({
      planId: euroPlan,
      payerInfo,
      paymentSource: { sepaDirectDebitInfo: { sepaDirectDebit: { iban: IBAN } } },
      authorizedByShopper: true,
    });
    expectStatus(sepa, 200);
    expect(sepa.body).toMatchObject({
      paymentSource: {
        sepaDirectDebitInfo: { sepaDirectDebit: { ibanFirstFour: 'DE89', ibanLastFour: '3000' } },
      },
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

    // A debit is pre-notified at least 5 days ahead (docs/conformance.md, Recurring billing): a DAILY plan leaves no room for it.
    const dailyEuroPlan = await newPlan({ currency: 'EUR', chargeFrequency: 'DAILY' });
    const daily = await subscribe({
      planId: dailyEuroPlan,
      payerInfo,
      paymentSource: { sepaDirectDebitInfo: { iban: IBAN } },
      authorizedByShopper: true,
    });
    expect(failure(daily)).toMatchObject({ status: 400, code: 10001, property: 'chargeFrequency' });
    const switched = await api.put(`/recurring/subscriptions/${sepa.body.subscriptionId}`, {
      planId: dailyEuroPlan,
    });
    expect(failure(switched)).toMatchObject({ status: 400, code: 10001, property: 'chargeFrequency' });
    const after = await db.query('select count(*)::int as n from subscription where plan_id = $1', [
      dailyEuroPlan,
    ]);
    expect(after.rows[0].n).toBe(0);
    expect((await api.get(`/recurring/subscriptions/${sepa.body.subscriptionId}`)).body.planId).toBe(
      euroPlan,
    );
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
      as(merchant, xml('recurring-subscriptions', 'recurring-subscription')),
    );
    expect(listed.text).toContain(
      '<recurring-subscriptions xmlns="http://ws.plimus.com"><last-page>false</last-page><recurring-subscription>',
    );
    for (const query of ['status=PAUSED', 'planid=x', 'pagesize=501', 'vaultedshopperid=-2']) {
      expect((await api.get(`/recurring/subscriptions?${query}`, as(merchant))).status, query).toBe(400);
    }
  });
});

/** A merchant whose IPNs for subscription events go to a fresh hook. */
async function merchantWithHook() {
  const merchant = await stack.newMerchant();
  const hook = receiver.newHook();
  const flags = ['sendCharge', 'sendCancellation', 'sendCancelOnRenewal', 'sendContractChange'];
  const config = hookConfig(hook, flags);
  expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
  const arrival = (transactionType: string, subscriptionId: number) =>
    waitFor(`${transactionType} of ${subscriptionId}`, () =>
      receiver
        .at(hook)
        .find(
          (ipn) =>
            ipn.params.get('transactionType') === transactionType &&
            ipn.params.get('subscriptionId') === String(subscriptionId),
        ),
    );
  return { merchant, arrival };
}

describe('subscription updates', () => {
  it('changes quantity, descriptor, override and next charge date; refuses a past date', async () => {
    const planId = await newPlan();
    const { body } = await subscribe({ planId, payerInfo, paymentSource: cardSource() });
    const id = body.subscriptionId;
    const next = plusDays(await today(), 40);
    const updated = await api.put(`/recurring/subscriptions/${id}`, {
      quantity: 3,
      softDescriptor: 'GOLD CLUB',
      descriptorPhoneNumber: '555-0100',
      overrideRecurringChargeAmount: 25,
      nextChargeDate: next,
    });
    expectStatus(updated, 200);
    expect(updated.body).toMatchObject({
      quantity: 3,
      softDescriptor: 'GOLD CLUB',
      descriptorPhoneNumber: '555-0100',
      overrideRecurringChargeAmount: 25,
      nextChargeDate: next,
    });
    for (const [change, property, errorName] of [
      [{ nextChargeDate: await today() }, 'nextChargeDate', 'VALIDATION_GENERAL_FAILURE'],
      [{ nextChargeDate: '2030-02-30' }, 'nextChargeDate', 'VALIDATION_GENERAL_FAILURE'],
      [{ quantity: -1 }, 'quantity', 'VALIDATION_GENERAL_FAILURE'],
      [{ status: 'SUSPENDED' }, 'status', 'VALIDATION_GENERAL_FAILURE'],
      [{ vaultedShopperId: body.vaultedShopperId + 1 }, 'vaultedShopperId', 'NON_UPDATABLE_FIELD'],
      [{ autoRenew: 'sometimes' }, 'autoRenew', 'VALIDATION_GENERAL_FAILURE'],
    ] as const) {
      const reply = await api.put(`/recurring/subscriptions/${id}`, change);
      expect(failure(reply), JSON.stringify(change)).toMatchObject({ status: 400, errorName, property });
    }
    const xmlUpdate = await api.put(
      `/recurring/subscriptions/${id}`,
      xmlDocument('recurring-subscription', { quantity: 4 }),
      xml('recurring-subscription'),
    );
    expect(xmlUpdate.body.quantity).toBe('4');
  });

  it('autoRenew false sends CancelOnRenewal; CANCELED ends it now with Cancellation, and then nothing changes', async () => {
    const { merchant, arrival } = await merchantWithHook();
    const planId = await newPlan({}, merchant);
    const { body } = await subscribe({ planId, payerInfo, paymentSource: cardSource() }, as(merchant));
    const id = body.subscriptionId;
    const charged = await arrival('CHARGE', id);
    expect(charged.params.get('contractId')).toBe(String(planId));
    const atPeriodEnd = await api.put(`/recurring/subscriptions/${id}`, { autoRenew: false }, as(merchant));
    expect(atPeriodEnd.body).toMatchObject({
      autoRenew: false,
      status: 'ACTIVE',
      nextChargeDate: body.nextChargeDate,
    });
    const notice = await arrival('CANCEL_ON_RENEWAL', id);
    // MM/dd/yyyy, as every date of the original's IPNs (recurring/events.ts)
    expect(notice.params.get('untilDate')).toBe(
      body.nextChargeDate.replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$2/$3/$1'),
    );
    const canceled = await api.put(`/recurring/subscriptions/${id}`, { status: 'CANCELED' }, as(merchant));
    expect(canceled.body).toMatchObject({ status: 'CANCELED' });
    expect(canceled.body.nextChargeDate).toBeUndefined();
    expect((await arrival('CANCELLATION', id)).params.get('contractId')).toBe(String(planId));
    const again = await api.put(`/recurring/subscriptions/${id}`, { quantity: 2 }, as(merchant));
    expect(failure(again)).toMatchObject({ status: 400, errorName: 'CANNOT_UPDATE_CANCELED_SUBSCRIPTION' });
  });

  it('a payment source update replaces the card, and resumes a SUSPENDED subscription', async () => {
    const planId = await newPlan();
    const { body } = await subscribe({ planId, payerInfo, paymentSource: cardSource() });
    const id = body.subscriptionId;
    await db.query(
      "update subscription set status = 'SUSPENDED', next_charge_date = '2020-01-01' where id = $1",
      [id],
    );
    const refused = await api.put(`/recurring/subscriptions/${id}`, { status: 'ACTIVE' });
    expect(failure(refused)).toMatchObject({ status: 400, errorName: 'INVALID_STATUS' });
    const resumed = await api.put(`/recurring/subscriptions/${id}`, {
      paymentSource: cardSource({ cardNumber: '5425233430109903', securityCode: '123' }),
    });
    expectStatus(resumed, 200);
    expect(resumed.body).toMatchObject({
      status: 'ACTIVE',
      nextChargeDate: await today(),
      paymentSource: {
        creditCardInfo: { creditCard: { cardLastFourDigits: '9903', cardType: 'MASTERCARD' } },
      },
    });
    const wrong = await api.put(`/recurring/subscriptions/${id}`, {
      paymentSource: { sepaDirectDebitInfo: { iban: IBAN } },
      authorizedByShopper: true,
    });
    expect(failure(wrong)).toMatchObject({ status: 400, property: 'currency' });
  });

  it('a plan switch with chargeOnPlanSwitch charges what switch-charge-amount said and restarts the period', async () => {
    const { merchant, arrival } = await merchantWithHook();
    const basic = await newPlan({ recurringChargeAmount: 10 }, merchant);
    const premium = await newPlan({ recurringChargeAmount: 30, chargeOnPlanSwitch: true }, merchant);
    const quiet = await newPlan({ recurringChargeAmount: 50, chargeFrequency: 'ANNUALLY' }, merchant);
    const euros = await newPlan({ currency: 'EUR' }, merchant);
    const { body } = await subscribe({ planId: basic, payerInfo, paymentSource: cardSource() }, as(merchant));
    const id = body.subscriptionId;
    const quote = await api.get(
      `/recurring/subscriptions/${id}/switch-charge-amount?newplanid=${premium}`,
      as(merchant),
    );
    expectStatus(quote, 200);
    // a whole period of basic is unused today: 30 less the 10 already paid
    expect(quote.body).toEqual({ value: 20, currency: 'USD' });
    const doubled = await api.get(
      `/recurring/subscriptions/${id}/switch-charge-amount?newplanid=${premium}&newquantity=2`,
      as(merchant),
    );
    expect(doubled.body.value).toBe(50);
    const switched = await api.put(`/recurring/subscriptions/${id}`, { planId: premium }, as(merchant));
    expectStatus(switched, 200);
    expect(switched.body).toMatchObject({
      planId: premium,
      recurringChargeAmount: 30,
      nextChargeDate: plusMonths(await today(), 1),
      charge: { amount: 20, chargeInfo: { chargeType: 'RECURRING' } },
    });
    expect((await arrival('CONTRACT_CHANGE', id)).params.get('cancelledContractId')).toBe(String(basic));
    const charges = await api.get(`/recurring/subscriptions/${id}/charges`, as(merchant));
    expect(charges.body.charges.map((charge: { amount: number }) => charge.amount)).toEqual([20, 10]);

    // no chargeOnPlanSwitch: nothing charged now, the next charge date stays
    const calm = await api.put(`/recurring/subscriptions/${id}`, { planId: quiet }, as(merchant));
    expect(calm.body).toMatchObject({
      planId: quiet,
      chargeFrequency: 'ANNUALLY',
      nextChargeDate: switched.body.nextChargeDate,
    });
    expect(calm.body.charge).toBeUndefined();

    for (const [change, errorName, status] of [
      [{ planId: euros }, 'MISMATCH_SUBSCRIPTION_CURRENCY', 400],
      [{ planId: 999999999 }, 'PLAN_NOT_FOUND', 404],
    ] as const) {
      expect(failure(await api.put(`/recurring/subscriptions/${id}`, change, as(merchant)))).toMatchObject({
        status,
        errorName,
      });
    }
    const badQuote = await api.get(`/recurring/subscriptions/${id}/switch-charge-amount`, as(merchant));
    expect(failure(badQuote)).toMatchObject({ status: 400, property: 'newplanid' });
  });

  it('a declined switch charge changes nothing', async () => {
    const basic = await newPlan({ recurringChargeAmount: 10, trialPeriodDays: 7 });
    // the sandbox declines amounts ending in .51; during a trial nothing was paid, so the whole period is due
    const pricey = await newPlan({ recurringChargeAmount: 10.51, chargeOnPlanSwitch: true });
    const { body } = await subscribe({ planId: basic, payerInfo, paymentSource: cardSource() });
    const id = body.subscriptionId;
    const quote = await api.get(`/recurring/subscriptions/${id}/switch-charge-amount?newplanid=${pricey}`);
    expect(quote.body).toEqual({ value: 10.51, currency: 'USD' });
    const declined = await api.put(`/recurring/subscriptions/${id}`, { planId: pricey, quantity: 1 });
    expect(failure(declined)).toMatchObject({ status: 400, errorName: 'INSUFFICIENT_FUNDS' });
    const read = await api.get(`/recurring/subscriptions/${id}`);
    expect(read.body).toEqual(body);
    const { rows } = await db.query('select status from subscription_charge where subscription_id = $1', [
      id,
    ]);
    expect(rows).toEqual([{ status: 'DECLINED' }]);
  });
});

describe('charges', () => {
  it('lists charged periods, resolves a charge by its transaction, and the Extended API adds one (201 + Location)', async () => {
    const planId = await newPlan({ recurringChargeAmount: 8 });
    const { body } = await subscribe({ planId, payerInfo, paymentSource: cardSource() });
    const id = body.subscriptionId;
    const extended = await api.post(
      `/subscriptions/${id}/subscription-charges`,
      {
        chargeInfo: { chargeDescription: 'Extra seats', fromDate: '2030-01-01', toDate: '2030-01-31' },
        skuChargePrice: { amount: 3.5, currency: 'USD' },
        expectedTotalPrice: { amount: 3.5, currency: 'USD' },
      },
      keyed(),
    );
    expect(extended.status, extended.text).toBe(201);
    expect(extended.text).toBe('');
    const location = extended.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^${stack.baseUrl}/subscriptions/${id}/subscription-charges/\\d+$`));
    const charges = await api.get(`/recurring/subscriptions/${id}/charges?gettotal=true`);
    expectStatus(charges, 200);
    expect(charges.body).toMatchObject({ totalResults: 2, lastPage: true });
    const [extra, initial] = charges.body.charges;
    expect(extra).toMatchObject({
      chargeId: Number(location.slice(location.lastIndexOf('/') + 1)),
      amount: 3.5,
      chargeInfo: {
        chargeDescription: 'Extra seats',
        fromDate: '2030-01-01',
        toDate: '2030-01-31',
        chargeType: 'RECURRING',
      },
    });
    expect(initial).toMatchObject({
      amount: 8,
      chargeInfo: { chargeType: 'INITIAL' },
      transactionId: body.charge.transactionId,
    });
    const resolved = await api.get(
      `/recurring/subscriptions/charges/resolve?transactionid=${extra.transactionId}`,
    );
    expect(resolved.body).toEqual(extra);
    const asXml = await api.get(`/recurring/subscriptions/${id}/charges`, xml('charges', 'charge'));
    expect(asXml.text).toContain(
      '<charges xmlns="http://ws.plimus.com"><last-page>true</last-page><charge><charge-id>',
    );
    const xmlExtended = await api.post(
      `/subscriptions/${id}/subscription-charges`,
      xmlDocument('subscription-charge', { chargeInfo: { chargeDescription: 'XML seats' } }),
      keyed(xml('subscription-charge')),
    );
    expect(xmlExtended.status, xmlExtended.text).toBe(201);

    for (const [bodyOut, errorName, property] of [
      [{}, 'VALIDATION_GENERAL_FAILURE', 'chargeInfo'],
      [
        { chargeInfo: { chargeDescription: 'x' }, skuChargePrice: { amount: 1, currency: 'EUR' } },
        'MISMATCH_SUBSCRIPTION_CURRENCY',
        'skuChargePrice.currency',
      ],
      [
        { chargeInfo: { chargeDescription: 'x' }, expectedTotalPrice: { amount: 1, currency: 'USD' } },
        'VALIDATION_GENERAL_FAILURE',
        'expectedTotalPrice',
      ],
    ] as const) {
      const reply = await api.post(`/subscriptions/${id}/subscription-charges`, bodyOut, keyed());
      expect(failure(reply), JSON.stringify(bodyOut)).toMatchObject({ status: 400, errorName, property });
    }
    for (const query of ['transactionid=999999999', 'transactionid=abc']) {
      expect(failure(await api.get(`/recurring/subscriptions/charges/resolve?${query}`))).toMatchObject({
        status: 404,
        errorName: 'SUBSCRIPTION_CHARGE_NOT_FOUND',
      });
    }
    expect(failure(await api.get('/recurring/subscriptions/charges/resolve'))).toMatchObject({
      status: 400,
      property: 'transactionid',
    });
    await api.put(`/recurring/subscriptions/${id}`, { status: 'CANCELED' });
    const ended = await api.post(
      `/subscriptions/${id}/subscription-charges`,
      { chargeInfo: { chargeDescription: 'x' } },
      keyed(),
    );
    expect(failure(ended)).toMatchObject({ status: 400, errorName: 'INVALID_STATUS' });
  });
});

describe('merchant-managed subscriptions', () => {
  it('the first charge creates it, later charges name it; retrieval and listing; JSON and XML', async () => {
    const first = await api.post(
      '/recurring/ondemand',
      { amount: 11, currency: 'EUR', payerInfo, paymentSource: cardSource(), softDescriptor: 'ONDEMAND' },
      keyed(),
    );
    expectStatus(first, 200);
    const id = first.body.subscriptionId;
    expect(first.body).toMatchObject({
      amount: 11,
      currency: 'EUR',
      chargeInfo: { chargeType: 'INITIAL' },
      processingInfo: { processingStatus: 'success' },
    });
    expect(first.body.planId).toBeUndefined();
    const later = await api.post(
      `/recurring/ondemand/${id}`,
      { amount: '4.25', currency: 'EUR', chargeInfo: { chargeDescription: 'April usage' } },
      keyed(),
    );
    expectStatus(later, 200);
    expect(later.body).toMatchObject({
      subscriptionId: id,
      amount: 4.25,
      chargeInfo: { chargeDescription: 'April usage' },
    });
    expect((await api.get(`/transactions/${later.body.transactionId}`)).body.amount).toBe(4.25);
    const read = await api.get(`/recurring/ondemand/${id}`);
    expect(read.body).toMatchObject({
      subscriptionId: id,
      status: 'ACTIVE',
      currency: 'EUR',
      softDescriptor: 'ONDEMAND',
    });
    expect(read.body.nextChargeDate).toBeUndefined();
    const listed = await api.get('/recurring/ondemand');
    expect(listed.body.subscriptions.map((s: { subscriptionId: number }) => s.subscriptionId)).toContain(id);
    const plans = await api.get('/recurring/subscriptions?pagesize=500');
    expect(plans.body.subscriptions.map((s: { subscriptionId: number }) => s.subscriptionId)).not.toContain(
      id,
    );

    const xmlCharge = await api.post(
      `/recurring/ondemand/${id}`,
      xmlDocument('charge', { amount: '2', currency: 'EUR' }),
      keyed(xml('charge')),
    );
    expectStatus(xmlCharge, 200);
    expect(xmlCharge.text).toContain('<amount>2.00</amount>');

    for (const [body, status, errorName, property] of [
      [{ amount: 1, currency: 'USD' }, 400, 'MISMATCH_SUBSCRIPTION_CURRENCY', 'currency'],
      [{ amount: 0, currency: 'EUR' }, 400, 'VALIDATION_GENERAL_FAILURE', 'amount'],
      [{ currency: 'EUR' }, 400, 'VALIDATION_GENERAL_FAILURE', 'amount'],
    ] as const) {
      const reply = await api.post(`/recurring/ondemand/${id}`, body, keyed());
      expect(failure(reply), JSON.stringify(body)).toMatchObject({ status, errorName, property });
    }
    const planId = await newPlan();
    const planBased = await subscribe({ planId, payerInfo, paymentSource: cardSource() });
    const wrongKind = await api.post(
      `/recurring/ondemand/${planBased.body.subscriptionId}`,
      { amount: 1, currency: 'USD' },
      keyed(),
    );
    expect(failure(wrongKind)).toMatchObject({ status: 404, errorName: 'SUBSCRIPTION_NOT_FOUND' });
    const declined = await api.post(`/recurring/ondemand/${id}`, { amount: 3.51, currency: 'EUR' }, keyed());
    expect(failure(declined)).toMatchObject({ status: 400, errorName: 'INSUFFICIENT_FUNDS' });
    const other = await stack.newMerchant();
    expect(failure(await api.get(`/recurring/ondemand/${id}`, as(other)))).toMatchObject({ status: 404 });
    expect(
      failure(await api.post(`/recurring/ondemand/${id}`, { amount: 1, currency: 'EUR' }, keyed(as(other)))),
    ).toMatchObject({
      status: 404,
    });
    const notOndemand = await api.put(`/recurring/ondemand/${planBased.body.subscriptionId}`, {
      status: 'CANCELED',
    });
    expect(failure(notOndemand)).toMatchObject({ status: 404, errorName: 'SUBSCRIPTION_NOT_FOUND' });
    const canceled = await api.put(`/recurring/ondemand/${id}`, { status: 'CANCELED' });
    expect(canceled.body.status).toBe('CANCELED');
    const afterCancel = await api.post(`/recurring/ondemand/${id}`, { amount: 1, currency: 'EUR' }, keyed());
    expect(failure(afterCancel)).toMatchObject({ status: 400, errorName: 'INVALID_STATUS' });
  });

  it('refuses a first charge without a payer or with a bad amount, writing nothing', async () => {
    const before = await rowCount('subscription');
    for (const [body, property] of [
      [{ amount: 5, currency: 'EUR' }, 'payerInfo'],
      [{ amount: 5, currency: 'EUR', payerInfo }, 'paymentSource'],
      [{ amount: '5.001', currency: 'EUR', payerInfo, paymentSource: cardSource() }, 'amount'],
      [
        {
          amount: 5,
          currency: 'USD',
          payerInfo,
          paymentSource: { sepaDirectDebitInfo: { iban: IBAN } },
          authorizedByShopper: true,
        },
        'currency',
      ],
    ] as const) {
      const reply = await api.post('/recurring/ondemand', body, keyed());
      expect(failure(reply), JSON.stringify(body)).toMatchObject({ status: 400, property });
    }
    expect(await rowCount('subscription')).toBe(before);
  });
});

describe('chargeSubscription (what renewals call)', () => {
  // A merchant of its own: the counts below must not meet a renewal the workers make for another test's
  // subscription of the stack's merchant (a resumed one is charged by the next run, up to a minute later).
  let merchant: TestMerchant;
  beforeAll(async () => {
    merchant = await stack.newMerchant();
  });

  /** A worker's context for the merchant, as core's jobs build theirs. */
  const workerContext = (): MerchantContext => {
    const { services } = stack.core;
    return {
      ...services,
      em: services.orm.em.fork(),
      merchantId: merchant.id,
      idempotency: null,
      memo: {},
    };
  };

  it('charges a period once whatever the concurrent callers; a declined period is retried under a new reference', async () => {
    const planId = await newPlan({ recurringChargeAmount: 6 }, merchant);
    const { body } = await subscribe({ planId, payerInfo, paymentSource: cardSource() }, as(merchant));
    const sales = await rowCount('card_transaction', merchant);
    const period = {
      subscriptionId: body.subscriptionId,
      period: 1,
      kind: 'RECURRING' as const,
      amountMinor: 600,
      dueDate: body.nextChargeDate,
      event: 'Recurring' as const,
    };
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => chargeSubscription(workerContext(), period)),
    );
    const charged = outcomes.filter((outcome) => outcome.outcome === 'CHARGED');
    expect(charged).toHaveLength(1);
    for (const outcome of outcomes)
      expect(['CHARGED', 'ALREADY_CHARGED', 'IN_FLIGHT']).toContain(outcome.outcome);
    expect(await rowCount('card_transaction', merchant)).toBe(sales + 1);
    expect((await chargeSubscription(workerContext(), period)).outcome).toBe('ALREADY_CHARGED');
    const listed = await api.get(`/recurring/subscriptions/${body.subscriptionId}/charges`, as(merchant));
    expect(listed.body.charges[0]).toMatchObject({
      amount: 6,
      transactionDate: body.nextChargeDate,
      chargeInfo: { chargeType: 'RECURRING' },
    });

    // the sandbox declines amounts ending in .51
    const second = { ...period, period: 2, amountMinor: 651 };
    const chargeRow = async (id: number) =>
      (
        await db.query<{ status: string; attempt: number; amount_minor: string }>(
          'select status, attempt, amount_minor from subscription_charge where id = $1',
          [id],
        )
      ).rows[0];
    const declined = await chargeSubscription(workerContext(), second);
    expect(declined.outcome).toBe('DECLINED');
    expect(await chargeRow(declined.chargeId)).toEqual({
      status: 'DECLINED',
      attempt: 1,
      amount_minor: '651',
    });
    const retried = await chargeSubscription(workerContext(), { ...second, amountMinor: 600 });
    expect(retried).toMatchObject({ outcome: 'CHARGED', chargeId: declined.chargeId });
    expect(await chargeRow(retried.chargeId)).toEqual({ status: 'CHARGED', attempt: 2, amount_minor: '600' });
    const { rows } = await db.query<{ reference: string; state: string }>(
      'select reference::text, state from payment_attempt where reference = any($1::uuid[]) order by id',
      [[chargeReference(retried.chargeId, 1), chargeReference(retried.chargeId, 2)]],
    );
    expect(rows.map((row) => row.state)).toEqual(['DECLINED', 'DONE']);
    expect(await rowCount('card_transaction', merchant)).toBe(sales + 2);

    // a claim whose caller died before asking the acquirer: in flight while young, retried once stale
    const third = { ...period, period: 3 };
    await db.query(
      `insert into subscription_charge (merchant_id, subscription_id, period, kind, status, attempt, amount_minor,
         currency, due_date, created_at, updated_at)
       values ($1, $2, 3, 'RECURRING', 'PENDING', 1, 600, 'USD', $3, now(), now())`,
      [merchant.id, body.subscriptionId, body.nextChargeDate],
    );
    expect((await chargeSubscription(workerContext(), third)).outcome).toBe('IN_FLIGHT');
    await db.query(
      "update subscription_charge set updated_at = now() - interval '1 hour' where subscription_id = $1 and period = 3",
      [body.subscriptionId],
    );
    const reclaimed = await chargeSubscription(workerContext(), third);
    expect(reclaimed.outcome).toBe('CHARGED');
    expect((await chargeRow(reclaimed.chargeId))?.attempt).toBe(2);
    expect(await rowCount('card_transaction', merchant)).toBe(sales + 3);
  });

  it("a SEPA subscription's period is a debit opened once", async () => {
    const planId = await newPlan({ currency: 'EUR', recurringChargeAmount: 4 }, merchant);
    const { body } = await subscribe(
      {
        planId,
        payerInfo,
        paymentSource: { sepaDirectDebitInfo: { iban: IBAN } },
        authorizedByShopper: true,
      },
      as(merchant),
    );
    const period = {
      subscriptionId: body.subscriptionId,
      period: 1,
      kind: 'RECURRING' as const,
      amountMinor: 400,
      dueDate: body.nextChargeDate,
    };
    const [first, second] = await Promise.all([
      chargeSubscription(workerContext(), period),
      chargeSubscription(workerContext(), period),
    ]);
    expect([first?.outcome, second?.outcome].sort()).toEqual(['ALREADY_CHARGED', 'CHARGED'].sort());
    const { rows } = await db.query('select count(*)::int as n from sepa_debit where shopper_id = $1', [
      body.vaultedShopperId,
    ]);
    expect(rows[0].n).toBe(2);
  });
});

describe('XML on every remaining route', () => {
  it('ondemand create and read, switch-charge-amount, resolve and errors answer XML', async () => {
    const created = await api.post(
      '/recurring/ondemand',
      xmlDocument('charge', {
        amount: '6',
        currency: 'USD',
        payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
        paymentSource: { creditCardInfo: { creditCard: card } },
      }),
      keyed(xml('charge')),
    );
    expectStatus(created, 200);
    expect(created.text).toContain('<charge xmlns="http://ws.plimus.com"><charge-id>');
    expect(created.body).toMatchObject({ amount: '6.00', chargeInfo: { chargeType: 'initial' } });
    const ondemand = await api.get(
      `/recurring/ondemand/${created.body.subscriptionId}`,
      xml('recurring-subscription'),
    );
    expect(ondemand.body).toMatchObject({ status: 'ACTIVE', currency: 'USD' });
    const listed = await api.get(
      '/recurring/ondemand?pagesize=1',
      xml('recurring-subscriptions', 'recurring-subscription'),
    );
    expect(listed.text).toContain('<recurring-subscriptions xmlns="http://ws.plimus.com">');

    const resolved = await api.get(
      `/recurring/subscriptions/charges/resolve?transactionid=${created.body.transactionId}`,
      xml('charge'),
    );
    expect(resolved.body).toMatchObject({ chargeId: created.body.chargeId, amount: '6.00' });

    const basic = await newPlan({ recurringChargeAmount: 10 });
    const premium = await newPlan({ recurringChargeAmount: 12, chargeOnPlanSwitch: true });
    const { body } = await subscribe({ planId: basic, payerInfo, paymentSource: cardSource() });
    const quote = await api.get(
      `/recurring/subscriptions/${body.subscriptionId}/switch-charge-amount?newplanid=${premium}`,
      xml('price'),
    );
    expect(quote.text).toContain(
      '<price xmlns="http://ws.plimus.com"><value>2.00</value><currency>USD</currency></price>',
    );
    const missing = await api.get('/recurring/subscriptions/999999999', xml('recurring-subscription'));
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('<error-name>SUBSCRIPTION_NOT_FOUND</error-name><code>20040</code>');
  });
});
