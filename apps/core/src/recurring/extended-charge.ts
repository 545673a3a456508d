import {
  amountInMinorUnits,
  DomainError,
  type extendedSubscriptionChargeInput,
  minorToAmount,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { chargeOffSchedule } from './charge.ts';
import { termsOf } from './present.ts';
import { findSubscription } from './subscriptions.ts';

/**
 * The Extended API's subscription charge: a charge of an ACTIVE plan-based subscription outside its schedule,
 * at the sku charge price sent or the subscription's period amount. Answers the charge's id.
 */
export async function extendedSubscriptionCharge(
  ctx: MerchantContext,
  input: z.output<typeof extendedSubscriptionChargeInput>,
): Promise<{ chargeId: number }> {
  const subscription = await findSubscription(ctx.em, ctx.merchantId, input.subscriptionId);
  if (subscription.status !== 'ACTIVE') {
    throw new DomainError('INVALID_STATUS', `subscription ${subscription.id} is ${subscription.status}`, {
      name: 'subscriptionId',
      messageValue: String(subscription.id),
    });
  }
  const { currency } = subscription;
  const price = input.skuChargePrice;
  if (price && price.currency !== currency) {
    throw new DomainError(
      'MISMATCH_SUBSCRIPTION_CURRENCY',
      `skuChargePrice.currency: the subscription charges in ${currency}`,
      {
        name: 'skuChargePrice.currency',
        messageValue: price.currency,
      },
    );
  }
  const amountMinor = price
    ? amountInMinorUnits(price.amount, currency, 'skuChargePrice.amount')
    : termsOf(subscription).periodMinor;
  const expected = input.expectedTotalPrice;
  if (
    expected &&
    (expected.currency !== currency ||
      amountInMinorUnits(expected.amount, currency, 'expectedTotalPrice.amount') !== amountMinor)
  ) {
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      `expectedTotalPrice: the charge is ${minorToAmount(amountMinor, currency)} ${currency}`,
      { name: 'expectedTotalPrice', messageValue: `${expected.amount} ${expected.currency}` },
    );
  }
  return chargeOffSchedule(
    ctx,
    { subscriptionId: subscription.id, kind: 'MERCHANT', amountMinor, chargeInfo: input.chargeInfo },
    async (_em, charged) => ({ chargeId: charged.id }),
  );
}
