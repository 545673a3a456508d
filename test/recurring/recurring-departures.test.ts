import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, xmlDocument } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Where recurring billing departed from the original's reference (docs/recurring.md), over real HTTP in JSON
// and XML.
// ---------------------------------------------------------------------------------------------------------

let stack: Stack;
let receiver: IpnReceiver;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  api = client(stack);
}, 120_000);

afterAll(async () => {
  await Promise.all([stack?.close(), receiver?.close()]);
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

describe('a subscription’s payments', () => {
  it('a trial starts with an AUTH_ONLY of zero; the first payment after it is a Charge, the next Recurring', async () => {
    const merchant = await stack.newMerchant();
    const hook = receiver.newHook();
    const config = hookConfig(hook, ['sendAuthOnly', 'sendCharge', 'sendRecurring']);
    expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
    const { planId } = expectStatus(
      await api.post('/recurring/plans', { ...gold, trialPeriodDays: 7 }, as(merchant)),
      200,
    ).body;
    const created = expectStatus(
      await api.post(
        '/recurring/subscriptions',
        {
          planId,
          payerInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139' },
          paymentSource: {
            creditCardInfo: {
              creditCard: {
                cardNumber: '4263982640269299',
                securityCode: '837',
                expirationMonth: '02',
                expirationYear: '2031',
              },
            },
          },
        },
        as(merchant),
      ),
      200,
    ).body;
    expect(created.charge).toBeUndefined();
    const { rows } = await stack.db.query(
      'select type, status, amount_minor::int as amount from card_transaction where merchant_id = $1',
      [merchant.id],
    );
    expect(rows).toEqual([{ type: 'AUTH_ONLY', status: 'AUTHORIZED', amount: 0 }]);
    const types = () => receiver.at(hook).map((ipn) => ipn.params.get('transactionType'));
    await waitFor('the AuthOnly IPN', () => types().includes('AUTH_ONLY'));

    const id = created.subscriptionId;
    expectStatus(await api.get(`/subscriptions/${id}/run-specific`, as(merchant)), 204);
    await waitFor('the first payment', () => types().includes('CHARGE'));
    expectStatus(await api.get(`/subscriptions/${id}/run-specific`, as(merchant)), 204);
    await waitFor('the second payment', () => types().includes('RECURRING'));
    expect(types().filter((type) => type === 'CHARGE')).toHaveLength(1);
    const first = receiver.at(hook).find((ipn) => ipn.params.get('transactionType') === 'CHARGE');
    expect(first?.params.get('subscriptionId')).toBe(String(id));
    expect(first?.params.get('invoiceAmount')).toBe('29.99');
  });
});

describe('a SEPA subscription’s payment source', () => {
  const IBAN = 'DE89370400440532013000';
  const euro = { name: 'Euro', currency: 'EUR', recurringChargeAmount: 15, chargeFrequency: 'MONTHLY' };
  const payerInfo = { firstName: 'Ada', lastName: 'Lovelace', country: 'de', zip: '10115' };

  it('is read and answered as the schema nests it: sepaDirectDebitInfo.sepaDirectDebit, JSON and XML', async () => {
    const merchant = await stack.newMerchant();
    const { planId } = expectStatus(await api.post('/recurring/plans', euro, as(merchant)), 200).body;
    const json = expectStatus(
      await api.post(
        '/recurring/subscriptions',
        {
          planId,
          payerInfo,
          paymentSource: { sepaDirectDebitInfo: { sepaDirectDebit: { iban: IBAN } } },
          authorizedByShopper: true,
        },
        as(merchant),
      ),
      200,
    );
    expect(json.body.paymentSource).toEqual({
      sepaDirectDebitInfo: {
        sepaDirectDebit: {
          ibanFirstFour: 'DE89',
          ibanLastFour: '3000',
          mandateId: expect.any(String),
          mandateDate: expect.stringMatching(/^\d{2}-[A-Z][a-z]{2}-\d{2}$/),
        },
      },
    });
    const xml = expectStatus(
      await api.post(
        '/recurring/subscriptions',
        `<?xml version="1.0" encoding="UTF-8"?>
<recurring-subscription xmlns="http://ws.plimus.com"><plan-id>${planId}</plan-id><payer-info><first-name>Ada</first-name><last-name>Lovelace</last-name><country>de</country><zip>10115</zip></payer-info><payment-source><sepa-direct-debit-info><sepa-direct-debit><iban>${IBAN}</iban></sepa-direct-debit></sepa-direct-debit-info></payment-source><authorized-by-shopper>true</authorized-by-shopper></recurring-subscription>`,
        as(merchant, { format: 'xml', shape: { root: 'recurring-subscription' } }),
      ),
      200,
    );
    expect(xml.text).toMatch(
      /<payment-source><sepa-direct-debit-info><sepa-direct-debit><iban-first-four>DE89<\/iban-first-four><iban-last-four>3000<\/iban-last-four><mandate-id>/,
    );
    expect(xml.text).not.toContain(IBAN);
  });

  it('without an IBAN names the nested property, and makes nothing', async () => {
    const merchant = await stack.newMerchant();
    const { planId } = expectStatus(await api.post('/recurring/plans', euro, as(merchant)), 200).body;
    const refused = expectStatus(
      await api.post(
        '/recurring/subscriptions',
        {
          planId,
          payerInfo,
          paymentSource: { sepaDirectDebitInfo: { sepaDirectDebit: {} } },
          authorizedByShopper: true,
        },
        as(merchant),
      ),
      400,
    );
    expect(refused.body.message[0].invalidProperty.name).toBe(
      'paymentSource.sepaDirectDebitInfo.sepaDirectDebit.iban',
    );
    const { rows } = await stack.db.query(
      'select count(*)::int as n from subscription where merchant_id = $1',
      [merchant.id],
    );
    expect(rows[0].n).toBe(0);
  });
});
