import {
  amountInMinorUnits,
  type createOndemandInput,
  DomainError,
  type ondemandChargeInput,
  type SubscriptionBody,
  type SubscriptionChargeBody,
  toMinorUnits,
  type updateSubscriptionInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { requireWithin, resolveSplitTerms } from '../marketplace/splits.ts';
import { chargeOffSchedule } from './charge.ts';
import { openSubscription } from './opening.ts';
import { requireDebitTerms, sourceScheme } from './payment-source.ts';
import { presentCharge, presentSubscription } from './present.ts';
import { findSubscription } from './subscriptions.ts';
import { updateSubscription } from './update.ts';

/**
 * Merchant-managed subscriptions: no plan and no schedule; the merchant decides each charge. The first
 * charge creates the subscription (POST /recurring/ondemand), later ones name it.
 */

export async function createOndemand(
  ctx: MerchantContext,
  input: z.output<typeof createOndemandInput>,
): Promise<SubscriptionChargeBody> {
  const scheme = sourceScheme(input.paymentSource);
  if (scheme) requireDebitTerms(scheme, { currency: input.currency });
  const firstChargeMinor = toMinorUnits(input.amount, input.currency);
  return openSubscription(
    ctx,
    {
      plan: null,
      currency: input.currency,
      vaultedShopperId: input.vaultedShopperId,
      payerInfo: input.payerInfo,
      paymentSource: input.paymentSource,
      quantity: 1,
      softDescriptor: input.softDescriptor,
      descriptorPhoneNumber: input.descriptorPhoneNumber,
      firstChargeMinor,
      trialDays: 0,
      merchantTransactionId: input.merchantTransactionId,
      split: await resolveSplitTerms(ctx.em, ctx.merchantId, input, {
        amountsMinor: [firstChargeMinor],
        currency: input.currency,
      }),
    },
    async (_em, subscription, charge) => {
      if (!charge) throw new Error('a merchant-managed subscription opens with its first charge');
      return presentCharge(subscription, charge);
    },
  );
}

async function findOndemand(ctx: MerchantContext, subscriptionId: number) {
  const subscription = await findSubscription(ctx.em, ctx.merchantId, subscriptionId);
  if (subscription.plan) {
    throw new DomainError(
      'SUBSCRIPTION_NOT_FOUND',
      `subscription ${subscriptionId} is plan-based, not merchant-managed`,
      { name: 'subscriptionId', messageValue: String(subscriptionId) },
    );
  }
  return subscription;
}

export async function getOndemand(ctx: MerchantContext, subscriptionId: number): Promise<SubscriptionBody> {
  return presentSubscription(await findOndemand(ctx, subscriptionId));
}

/**
 * A later charge of an ACTIVE merchant-managed subscription, in its currency, from its payment source, split
 * by its own vendorsInfo or else the subscription's.
 */
export async function chargeOndemand(
  ctx: MerchantContext,
  input: z.output<typeof ondemandChargeInput>,
): Promise<SubscriptionChargeBody> {
  const subscription = await findOndemand(ctx, input.subscriptionId);
  if (subscription.status !== 'ACTIVE') {
    throw new DomainError('INVALID_STATUS', `subscription ${subscription.id} is ${subscription.status}`, {
      name: 'subscriptionId',
      messageValue: String(subscription.id),
    });
  }
  if (input.currency !== subscription.currency) {
    throw new DomainError(
      'MISMATCH_SUBSCRIPTION_CURRENCY',
      `currency: the subscription charges in ${subscription.currency}`,
      { name: 'currency', messageValue: input.currency },
    );
  }
  const amountMinor = amountInMinorUnits(input.amount, subscription.currency);
  // The charge's own vendors, else the subscription's; either must fit this charge's amount.
  const split =
    (await resolveSplitTerms(ctx.em, ctx.merchantId, input, {
      amountsMinor: [],
      currency: subscription.currency,
    })) ?? subscription.vendorSplit;
  if (split) requireWithin(split, [amountMinor]);
  return chargeOffSchedule(
    ctx,
    {
      subscriptionId: subscription.id,
      kind: 'MERCHANT',
      amountMinor,
      ...(split ? { split } : {}),
      chargeInfo: input.chargeInfo,
      merchantTransactionId: input.merchantTransactionId,
    },
    async (_em, charged) => presentCharge(subscription, await charged.read()),
  );
}

/** PUT /recurring/ondemand/{id}: the subscription update, for merchant-managed subscriptions only. */
export async function updateOndemand(
  ctx: MerchantContext,
  input: z.output<typeof updateSubscriptionInput>,
): Promise<SubscriptionBody> {
  await findOndemand(ctx, input.subscriptionId);
  return updateSubscription(ctx, input);
}
