import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, xmlDocument } from './support/http.ts';
import { type Stack, startStack } from './support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// Where recurring billing departed from the original's reference (docs/recurring.md), over real HTTP in JSON
// and XML.
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

const planShape = { root: 'plan' };
const gold = { name: 'Gold', currency: 'USD', recurringChargeAmount: 29.99, chargeFrequency: 'MONTHLY' };

describe('Create Plan', () => {
  it('puts the plan’s URL in Location as well as its id in the body, JSON and XML', async () => {
    const merchant = await stack.newMerchant();
    const json = expectStatus(await api.post('/recurring/plans', gold, as(merchant)), 200);
    expect(json.headers.get('location')).toMatch(
      new RegExp(`/services/2/recurring/plans/${json.body.planId}$`),
    );
    const xml = expectStatus(
      await api.post(
        '/recurring/plans',
        xmlDocument('plan', { ...gold, name: 'Gold XML' }),
        as(merchant, { format: 'xml', shape: planShape }),
      ),
      200,
    );
    expect(xml.headers.get('location')).toMatch(
      new RegExp(`/services/2/recurring/plans/${xml.body.planId}$`),
    );
    // The URL reads the plan back.
    const path = new URL(json.headers.get('location') ?? '').pathname.replace('/services/2', '');
    expect(expectStatus(await api.get(path, as(merchant)), 200).body.name).toBe('Gold');
  });

  it('a refused plan has no Location', async () => {
    const merchant = await stack.newMerchant();
    const refused = expectStatus(
      await api.post('/recurring/plans', { ...gold, currency: 'XXX' }, as(merchant)),
      400,
    );
    expect(refused.headers.get('location')).toBeNull();
  });
});

describe('Update Plan', () => {
  it('takes the recurring amount, currency and frequency sent unchanged, and refuses a changed amount', async () => {
    const merchant = await stack.newMerchant();
    const { planId } = expectStatus(await api.post('/recurring/plans', gold, as(merchant)), 200).body;
    const same = expectStatus(
      await api.put(
        `/recurring/plans/${planId}`,
        { ...gold, name: 'Gold+', recurringChargeAmount: '29.99' },
        as(merchant),
      ),
      200,
    );
    expect(same.body).toMatchObject({ name: 'Gold+', recurringChargeAmount: 29.99 });

    const changed = expectStatus(
      await api.put(`/recurring/plans/${planId}`, { ...gold, recurringChargeAmount: 30 }, as(merchant)),
      400,
    );
    expect(changed.body.message[0]).toMatchObject({
      errorName: 'NON_UPDATABLE_FIELD',
      invalidProperty: { name: 'recurringChargeAmount', messageValue: '30' },
    });
    const xml = expectStatus(
      await api.put(
        `/recurring/plans/${planId}`,
        xmlDocument('plan', { ...gold, recurringChargeAmount: '31.00' }),
        as(merchant, { format: 'xml', shape: planShape }),
      ),
      400,
    );
    expect(xml.text).toContain('<error-name>NON_UPDATABLE_FIELD</error-name>');
    // Nothing changed: not the amount, nor the name sent with it.
    expect(expectStatus(await api.get(`/recurring/plans/${planId}`, as(merchant)), 200).body).toMatchObject({
      name: 'Gold+',
      recurringChargeAmount: 29.99,
    });
  });
});
