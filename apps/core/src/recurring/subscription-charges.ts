import {
  type ChargePage,
  DomainError,
  type listChargesInput,
  type resolveChargeInput,
  type SubscriptionChargeBody,
  transactionIdOf,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { SubscriptionCharge } from './entities.ts';
import { pageOf } from './paging.ts';
import { presentCharges } from './present.ts';
import { findSubscription } from './subscriptions.ts';

export async function listCharges(
  ctx: MerchantContext,
  input: z.output<typeof listChargesInput>,
): Promise<ChargePage> {
  const subscription = await findSubscription(ctx.em, ctx.merchantId, input.subscriptionId);
  const page = await pageOf(
    ctx.em,
    SubscriptionCharge,
    { merchantId: ctx.merchantId, subscription, status: 'CHARGED' },
    input,
  );
  return {
    ...(page.totalResults !== undefined ? { totalResults: page.totalResults } : {}),
    lastPage: page.lastPage,
    charges: await presentCharges(ctx.em, subscription, page.items),
  };
}

/** The subscription charge a transaction id (card sale or SEPA debit) belongs to. */
export async function resolveCharge(
  ctx: MerchantContext,
  input: z.output<typeof resolveChargeInput>,
): Promise<SubscriptionChargeBody> {
  const id = transactionIdOf(input.transactionid);
  const charge =
    id !== null &&
    (await ctx.em.findOne(SubscriptionCharge, {
      merchantId: ctx.merchantId,
      status: 'CHARGED',
      $or: [{ cardTransactionId: id }, { sepaDebitId: id }],
    }));
  if (!charge) {
    throw new DomainError(
      'SUBSCRIPTION_CHARGE_NOT_FOUND',
      `no subscription charge has transaction ${input.transactionid.slice(0, 50)}`,
      { name: 'transactionid', messageValue: input.transactionid.slice(0, 50) },
    );
  }
  const subscription = await findSubscription(ctx.em, ctx.merchantId, charge.subscription.id);
  const [body] = await presentCharges(ctx.em, subscription, [charge]);
  return body as SubscriptionChargeBody;
}
