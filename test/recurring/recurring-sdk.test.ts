import type { BlueSnapGateway } from 'bluesnap';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedSdk } from '../support/published-sdk.ts';
import { type Stack, startStack } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// The published Node SDK (bluesnap@0.3.4), unchanged, against the running service: its 13 subscription
// methods. The SDK only knows the original's two hosts; a config whose base URL is ours is all it takes.
// ---------------------------------------------------------------------------------------------------------

let stack: Stack;
let sdk: BlueSnapGateway;

beforeAll(async () => {
  stack = await startStack();
  sdk = publishedSdk(stack);
});

afterAll(async () => {
  await stack?.close();
});

const creditCard = {
  cardNumber: '4263982640269299',
  securityCode: '837',
  expirationMonth: '02',
  expirationYear: '2031',
};

describe('the published Node SDK, subscription methods', () => {
  it('plans: createPlan, updatePlan, getPlan, getAllPlans', async () => {
    const plan = await sdk.subscription.createPlan({
      name: 'SDK Gold',
      currency: 'USD',
      recurringChargeAmount: 19.99,
      chargeFrequency: 'MONTHLY',
      chargeOnPlanSwitch: true,
    });
    expect(plan).toMatchObject({ name: 'SDK Gold', recurringChargeAmount: 19.99, status: 'ACTIVE' });
    expect(plan.planId).toBeGreaterThan(0);
    const updated = await sdk.subscription.updatePlan(plan.planId, {
      name: 'SDK Gold+',
      // the reference's Update Plan: the recurring amount, currency and frequency sent unchanged
      currency: 'USD',
      recurringChargeAmount: 19.99,
      chargeFrequency: 'MONTHLY',
    });
    expect(updated).toMatchObject({ planId: plan.planId, name: 'SDK Gold+', recurringChargeAmount: 19.99 });
    expect(await sdk.subscription.getPlan(plan.planId)).toEqual(updated);
    const list = await sdk.subscription.getAllPlans({ pagesize: 5, gettotal: true, fulldescription: false });
    expect(list).toMatchObject({
      totalResults: 1,
      lastPage: true,
      plans: [{ planId: plan.planId, name: 'SDK Gold+' }],
    });
  });

  it('subscriptions: create, get, update (plan switch), list, charges, resolve, switch charge amount', async () => {
    const basic = await sdk.subscription.createPlan({
      name: 'SDK Basic',
      currency: 'USD',
      recurringChargeAmount: 10,
      chargeFrequency: 'MONTHLY',
    });
    const premium = await sdk.subscription.createPlan({
      name: 'SDK Premium',
      currency: 'USD',
      recurringChargeAmount: 25,
      chargeFrequency: 'MONTHLY',
      chargeOnPlanSwitch: true,
    });
    const created = await sdk.subscription.createSubscription({
      planId: basic.planId,
      payerInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139' },
      paymentSource: { creditCardInfo: { creditCard } },
    });
    expect(created).toMatchObject({ planId: basic.planId, status: 'ACTIVE', charge: { amount: 10 } });
    const { subscriptionId } = created;
    expect((await sdk.subscription.getSubscription(subscriptionId)).subscriptionId).toBe(subscriptionId);

    const quote = await sdk.subscription.getSubscriptionSwitchCharge(subscriptionId, {
      newplanid: premium.planId,
    });
    // The reference's price object (the SDK types it as a charge, and hands the body over as it came).
    expect(quote).toEqual({ value: 15, currency: 'USD' });
    // The SDK types an update as a whole create request (planId required): a partial one needs a cast.
    const switched = await sdk.subscription.updateSubscription(subscriptionId, {
      planId: premium.planId,
    } as never);
    expect(switched).toMatchObject({ planId: premium.planId, charge: { amount: 15 } });

    const all = await sdk.subscription.getAllSubscriptions({
      gettotal: true,
      shopperid: created.vaultedShopperId,
    });
    expect(all).toMatchObject({
      totalResults: 1,
      subscriptions: [{ subscriptionId, planId: premium.planId }],
    });
    const charges = await sdk.subscription.getAllSubscriptionCharges(subscriptionId, { gettotal: true });
    expect(charges.totalResults).toBe(2);
    expect(charges.charges.map((charge) => charge.amount)).toEqual([15, 10]);
    const resolved = await sdk.subscription.getSubscriptionCharge(Number(created.charge.transactionId));
    expect(resolved).toMatchObject({ subscriptionId, amount: 10, chargeInfo: { chargeType: 'INITIAL' } });

    const canceled = await sdk.subscription.updateSubscription(subscriptionId, {
      status: 'CANCELED',
    } as never);
    expect(canceled.status).toBe('CANCELED');
  });

  it('merchant-managed: createMerchantManagedSubscription and createMerchantManagedSubscriptionCharge', async () => {
    const first = (await sdk.subscription.createMerchantManagedSubscription({
      amount: 7,
      currency: 'USD',
      payerInfo: { firstName: 'Grace', lastName: 'Hopper' },
      paymentSource: { creditCardInfo: { creditCard } },
    } as never)) as unknown as { subscriptionId: number; amount: number; chargeId: number };
    expect(first).toMatchObject({ amount: 7 });
    const later = await sdk.subscription.createMerchantManagedSubscriptionCharge(first.subscriptionId, {
      amount: 3,
      currency: 'USD',
      chargeInfo: { chargeDescription: 'usage' },
    });
    expect(later).toMatchObject({ subscriptionId: first.subscriptionId, amount: 3 });
    expect(later.chargeId).not.toBe(first.chargeId);
  });

  it('an error reaches the SDK in the original error shape', async () => {
    const reply = (await sdk.subscription.getPlan(999999999)) as unknown as {
      message: Array<{ errorName: string; code: number }>;
    };
    expect(reply.message[0]).toMatchObject({ errorName: 'PLAN_NOT_FOUND' });
  });
});
