import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import {
  DomainError,
  type listSubscriptionsInput,
  type SubscriptionBody,
  type SubscriptionPage,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { Subscription } from './entities.ts';
import { pageOf } from './paging.ts';
import { presentSubscription } from './present.ts';

/** Finding and listing subscriptions; each other role has its module (creation, update, switching, ...). */
const populate = ['plan', 'shopper', 'card', 'sepaMandate'] as const;

export const subscriptionNotFound = (subscriptionId: number) =>
  new DomainError('SUBSCRIPTION_NOT_FOUND', `subscription ${subscriptionId} was not found`, {
    name: 'subscriptionId',
    messageValue: String(subscriptionId),
  });

export async function findSubscription(
  em: EntityManager,
  merchantId: number,
  subscriptionId: number,
  lock = false,
): Promise<Subscription> {
  const subscription = await em.findOne(
    Subscription,
    { id: subscriptionId, merchantId },
    { populate, ...(lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}) },
  );
  if (!subscription) {
    throw subscriptionNotFound(subscriptionId);
  }
  return subscription;
}

export async function getSubscription(
  ctx: MerchantContext,
  subscriptionId: number,
): Promise<SubscriptionBody> {
  return presentSubscription(await findSubscription(ctx.em, ctx.merchantId, subscriptionId));
}

export async function listSubscriptions(
  ctx: MerchantContext,
  input: z.output<typeof listSubscriptionsInput>,
  merchantManaged = false,
): Promise<SubscriptionPage> {
  const shopper = input.vaultedshopperid ?? input.shopperid;
  const page = await pageOf(
    ctx.em,
    Subscription,
    {
      merchantId: ctx.merchantId,
      plan: merchantManaged ? null : { $ne: null },
      ...(input.status ? { status: input.status } : {}),
      ...(input.planid ? { plan: input.planid } : {}),
      ...(shopper ? { shopper } : {}),
    },
    input,
  );
  await ctx.em.populate(page.items, populate);
  return {
    ...(page.totalResults !== undefined ? { totalResults: page.totalResults } : {}),
    lastPage: page.lastPage,
    subscriptions: page.items.map((subscription) =>
      input.fulldescription
        ? presentSubscription(subscription)
        : { subscriptionId: subscription.id, status: subscription.status },
    ),
  };
}
