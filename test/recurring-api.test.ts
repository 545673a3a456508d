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
