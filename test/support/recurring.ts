import { as, type client, expectStatus, type Reply, saleBody } from './http.ts';
import type { TestMerchant } from './stack.ts';

type Api = ReturnType<typeof client>;

/** A plan for `merchant`: Gold, 9.99 USD monthly unless `fields` say otherwise. Returns its id. */
export async function createPlan(
  api: Api,
  merchant: TestMerchant,
  fields: Record<string, unknown> = {},
): Promise<number> {
  const reply = await api.post(
    '/recurring/plans',
    { name: 'Gold', currency: 'USD', recurringChargeAmount: 9.99, chargeFrequency: 'MONTHLY', ...fields },
    as(merchant),
  );
  return Number(expectStatus(reply, 200).body.planId);
}

/**
 * A subscription of `merchant` to `planId`, paid by the test card (a sale's) unless `fields` say otherwise.
 * Returns the answer's body, which must be 200.
 */
export async function subscribe(
  api: Api,
  merchant: TestMerchant,
  planId: number,
  fields: Record<string, unknown> = {},
): Promise<Reply['body']> {
  const reply = await api.post(
    '/recurring/subscriptions',
    {
      planId,
      payerInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139', country: 'us' },
      paymentSource: { creditCardInfo: { creditCard: saleBody().creditCard } },
      ...fields,
    },
    as(merchant),
  );
  return expectStatus(reply, 200).body;
}
