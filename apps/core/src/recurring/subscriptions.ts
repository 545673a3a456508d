import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import {
  amountInMinorUnits,
  type ChargePage,
  type createSubscriptionInput,
  DomainError,
  type extendedSubscriptionChargeInput,
  type listChargesInput,
  type listSubscriptionsInput,
  minorToAmount,
  type resolveChargeInput,
  type SubscriptionBody,
  type SubscriptionChargeBody,
  type SubscriptionPage,
  type SwitchChargeAmount,
  type switchChargeAmountInput,
  transactionIdOf,
  type updateSubscriptionInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import { callNow } from '../clock/clock.ts';
import { advanceClock } from '../clock/service.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { kickRenewals } from '../jobs/queues.ts';
import { resolveSplitTerms } from '../marketplace/splits.ts';
import { chargeSubscription } from './charge.ts';
import { type RecurringPlan, Subscription, SubscriptionCharge } from './entities.ts';
import {
  cancellationParameters,
  cancelOnRenewalParameters,
  contractChangeParameters,
  recordSubscriptionEvent,
  subscriptionFactsOf,
} from './events.ts';
import { openSubscription } from './opening.ts';
import { pageOf } from './paging.ts';
import { requireDebitTerms, resolvePayer, sourceScheme } from './payment-source.ts';
import { findPlan } from './plans.ts';
import { presentCharge, presentCharges, presentSubscription, termsOf } from './present.ts';
import { subscriptionDueAt } from './queries.ts';
import { addFrequency, calendarDate, daysBetween, periodDueDate } from './schedule.ts';
import { periodAmountMinor } from './terms.ts';

type CreateSubscription = z.output<typeof createSubscriptionInput>;
type UpdateSubscription = z.output<typeof updateSubscriptionInput>;

const populate = ['plan', 'shopper', 'card', 'sepaMandate'] as const;

const subscriptionNotFound = (subscriptionId: number) =>
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

function requireActivePlan(plan: RecurringPlan, property: string): void {
  if (plan.status !== 'ACTIVE') {
    throw new DomainError('INVALID_STATUS', `${property}: plan ${plan.id} is INACTIVE`, {
      name: property,
      messageValue: String(plan.id),
    });
  }
}

export async function createSubscription(
  ctx: MerchantContext,
  input: CreateSubscription,
): Promise<SubscriptionBody> {
  const plan = await findPlan(ctx.em, ctx.merchantId, input.planId);
  requireActivePlan(plan, 'planId');
  const { currency } = plan;
  const scheme = sourceScheme(input.paymentSource);
  if (scheme) requireDebitTerms(scheme, { currency, frequency: plan.chargeFrequency });
  const minor = (amount: string | undefined, property: string) =>
    amount === undefined ? undefined : amountInMinorUnits(amount, currency, property);
  const overrideRecurringChargeMinor = minor(
    input.overrideRecurringChargeAmount,
    'overrideRecurringChargeAmount',
  );
  const overrideInitialChargeMinor = minor(input.overrideInitialChargeAmount, 'overrideInitialChargeAmount');
  // 0 is ignored, as the reference says: the plan's trial applies
  const overrideTrialPeriodDays = input.overrideTrialPeriodDays || undefined;
  const quantity = input.quantity ?? 1;
  const trialDays = overrideTrialPeriodDays ?? plan.trialPeriodDays ?? 0;
  const initialMinor = overrideInitialChargeMinor ?? plan.initialChargeMinor;
  const period = periodAmountMinor({
    planRecurringMinor: plan.recurringChargeMinor,
    overrideRecurringMinor: overrideRecurringChargeMinor,
    quantity,
  });
  const firstChargeMinor = trialDays > 0 ? 0 : (initialMinor ?? period);
  // Checked against the first charge and the renewals' amount: every charge then splits as asked.
  const split = await resolveSplitTerms(ctx.em, ctx.merchantId, input, {
    amountsMinor: [firstChargeMinor, period],
    currency,
  });
  return openSubscription(
    ctx,
    {
      plan,
      currency,
      vaultedShopperId: input.vaultedShopperId,
      payerInfo: input.payerInfo,
      paymentSource: input.paymentSource,
      quantity,
      softDescriptor: input.softDescriptor,
      descriptorPhoneNumber: input.descriptorPhoneNumber,
      overrideRecurringChargeMinor,
      overrideTrialPeriodDays,
      overrideInitialChargeMinor,
      firstChargeMinor,
      trialDays,
      merchantTransactionId: input.merchantTransactionId,
      split,
    },
    async (_em, subscription, charge) =>
      presentSubscription(subscription, charge ? presentCharge(subscription, charge) : undefined),
  );
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

/**
 * What switching to `newPlan` now charges (README, Recurring billing): the new plan's period for the
 * quantity, less the unused part of the period already paid (by days left of it), never below 0. A switch
 * to a plan without chargeOnPlanSwitch charges nothing now.
 */
function switchChargeMinor(
  subscription: Subscription,
  newPlan: RecurringPlan,
  quantity: number,
  today: string,
): number {
  if (!newPlan.chargeOnPlanSwitch) return 0;
  const plan = subscription.plan as RecurringPlan;
  const newPeriod = periodAmountMinor({
    planRecurringMinor: newPlan.recurringChargeMinor,
    overrideRecurringMinor: subscription.overrideRecurringChargeMinor,
    quantity,
  });
  const nextDate = subscription.nextChargeDate;
  if (subscription.chargesMade === 0 || !nextDate) return newPeriod;
  const periodStart = periodDueDate(
    {
      anchorDate: subscription.anchorDate as string,
      anchorPeriod: subscription.anchorPeriod,
      frequency: plan.chargeFrequency,
    },
    subscription.nextPeriod - 1,
  );
  const periodDays = Math.max(1, daysBetween(periodStart, nextDate));
  const daysLeft = Math.min(periodDays, Math.max(0, daysBetween(today, nextDate)));
  const credit = Math.floor((termsOf(subscription).periodMinor * daysLeft) / periodDays);
  return Math.max(0, newPeriod - credit);
}

export async function switchChargeAmount(
  ctx: MerchantContext,
  input: z.output<typeof switchChargeAmountInput>,
): Promise<SwitchChargeAmount> {
  const subscription = await findSubscription(ctx.em, ctx.merchantId, input.subscriptionId);
  const newPlan = await switchTarget(ctx.em, ctx.merchantId, subscription, input.newplanid, 'newplanid');
  const today = calendarDate(await callNow(ctx, ctx.em));
  const amountMinor = switchChargeMinor(
    subscription,
    newPlan,
    input.newquantity ?? subscription.quantity,
    today,
  );
  return { value: minorToAmount(amountMinor, subscription.currency), currency: subscription.currency };
}

async function switchTarget(
  em: EntityManager,
  merchantId: number,
  subscription: Subscription,
  planId: number,
  property: string,
): Promise<RecurringPlan> {
  if (!subscription.plan) {
    throw new DomainError('SWITCH_PLAN_ERROR', 'a merchant-managed subscription has no plan to switch', {
      name: property,
      messageValue: String(planId),
    });
  }
  const newPlan = await findPlan(em, merchantId, planId);
  requireActivePlan(newPlan, property);
  if (newPlan.currency !== subscription.currency) {
    throw new DomainError(
      'MISMATCH_SUBSCRIPTION_CURRENCY',
      `${property}: plan ${planId} charges in ${newPlan.currency}, the subscription in ${subscription.currency}`,
      { name: property, messageValue: String(planId) },
    );
  }
  if (subscription.sepaMandate)
    requireDebitTerms(subscription.sepaMandate.scheme, {
      currency: newPlan.currency,
      frequency: newPlan.chargeFrequency,
    });
  return newPlan;
}

/** What the subscription's next period is once it is due again from `date` (the schedule re-anchored). */
function reanchor(subscription: Subscription, date: string): void {
  subscription.anchorDate = date;
  subscription.anchorPeriod = subscription.nextPeriod;
  subscription.nextChargeDate = date;
}

/**
 * A SUSPENDED subscription whose payment source was updated resumes (dunning.ts): ACTIVE, its unpaid period
 * due today, and the following ones placed from today: those that fell due while it was suspended are not
 * charged.
 */
export function resumeSuspended(subscription: Subscription, today: string): void {
  subscription.status = 'ACTIVE';
  if (subscription.nextChargeDate && subscription.nextChargeDate < today) reanchor(subscription, today);
}

function refuseEnded(subscription: Subscription): void {
  if (subscription.status === 'CANCELED' || subscription.status === 'FINISHED') {
    throw new DomainError(
      'CANNOT_UPDATE_CANCELED_SUBSCRIPTION',
      `subscription ${subscription.id} is ${subscription.status} and cannot change`,
      { name: 'subscriptionId', messageValue: String(subscription.id) },
    );
  }
}

/** The update, checked and applied under the subscription's row lock, with its events; returns what changed. */
async function applyUpdate(
  ctx: MerchantContext,
  em: EntityManager,
  input: UpdateSubscription,
  now: Date,
  switchCharged: boolean,
): Promise<Subscription> {
  const subscription = await findSubscription(em, ctx.merchantId, input.subscriptionId, true);
  refuseEnded(subscription);
  const today = calendarDate(now);
  const { currency } = subscription;
  if (input.vaultedShopperId !== undefined && input.vaultedShopperId !== subscription.shopper.id) {
    throw new DomainError('NON_UPDATABLE_FIELD', 'vaultedShopperId: a subscription keeps its shopper', {
      name: 'vaultedShopperId',
      messageValue: String(input.vaultedShopperId),
    });
  }
  if (input.status === 'CANCELED') {
    subscription.status = 'CANCELED';
    subscription.canceledAt = now;
    subscription.nextChargeDate = null;
    await em.flush();
    await recordSubscriptionEvent(
      ctx,
      em,
      'Cancellation',
      cancellationParameters(subscriptionFactsOf(subscription), now, 'MERCHANT_REQUEST'),
    );
    return subscription;
  }
  if (input.status === 'ACTIVE' && subscription.status === 'SUSPENDED' && !input.paymentSource) {
    throw new DomainError(
      'INVALID_STATUS',
      'status: a SUSPENDED subscription resumes when its payment source is updated',
      {
        name: 'status',
        messageValue: 'ACTIVE',
      },
    );
  }
  if (input.paymentSource) {
    const payer = await resolvePayer(ctx, em, subscription.shopper, input.paymentSource, now);
    if (payer.mandate)
      requireDebitTerms(payer.mandate.scheme, { currency, frequency: subscription.plan?.chargeFrequency });
    subscription.card = payer.card ?? null;
    subscription.sepaMandate = payer.mandate ?? null;
    if (subscription.status === 'SUSPENDED') {
      resumeSuspended(subscription, today);
      await kickRenewals(ctx.jobs, em); // charged in seconds, not at the next minute's run
    }
  }
  if (input.quantity !== undefined) subscription.quantity = input.quantity;
  if (input.softDescriptor !== undefined) subscription.softDescriptor = input.softDescriptor;
  if (input.descriptorPhoneNumber !== undefined)
    subscription.descriptorPhoneNumber = input.descriptorPhoneNumber;
  if (input.overrideRecurringChargeAmount !== undefined) {
    subscription.overrideRecurringChargeMinor = amountInMinorUnits(
      input.overrideRecurringChargeAmount,
      currency,
      'overrideRecurringChargeAmount',
    );
  }
  if (input.nextChargeDate !== undefined) {
    if (!subscription.plan) {
      throw new DomainError(
        'NON_UPDATABLE_FIELD',
        'nextChargeDate: a merchant-managed subscription has no schedule',
        {
          name: 'nextChargeDate',
        },
      );
    }
    if (input.nextChargeDate <= today) {
      throw new DomainError('VALIDATION_GENERAL_FAILURE', `nextChargeDate: must be after today (${today})`, {
        name: 'nextChargeDate',
        messageValue: input.nextChargeDate,
      });
    }
    reanchor(subscription, input.nextChargeDate);
  }
  if (input.planId !== undefined && input.planId !== subscription.plan?.id) {
    const newPlan = await switchTarget(em, ctx.merchantId, subscription, input.planId, 'planId');
    const old = subscription.plan as RecurringPlan;
    subscription.plan = newPlan;
    // A charged switch starts a new period today; otherwise the new plan's periods start at the next charge date.
    if (switchCharged) reanchor(subscription, addFrequency(today, newPlan.chargeFrequency, 1));
    else if (subscription.nextChargeDate) reanchor(subscription, subscription.nextChargeDate);
    await em.flush();
    await recordSubscriptionEvent(
      ctx,
      em,
      'ContractChange',
      contractChangeParameters(subscriptionFactsOf(subscription), old, now),
    );
  }
  if (input.vendorInfo || input.vendorsInfo) {
    // New terms replace the old for the charges to come, checked against what a renewal charges now.
    subscription.vendorSplit = await resolveSplitTerms(em, ctx.merchantId, input, {
      amountsMinor: subscription.plan ? [termsOf(subscription).periodMinor] : [],
      currency,
    });
  }
  if (input.autoRenew !== undefined && input.autoRenew !== subscription.autoRenew) {
    subscription.autoRenew = input.autoRenew;
    if (!input.autoRenew) {
      await recordSubscriptionEvent(
        ctx,
        em,
        'CancelOnRenewal',
        cancelOnRenewalParameters(
          subscriptionFactsOf(subscription),
          subscription.nextChargeDate ?? today,
          now,
        ),
      );
    }
  }
  await em.flush();
  return subscription;
}

/**
 * PUT /recurring/subscriptions/{id}. A plan switch to a plan with chargeOnPlanSwitch charges first
 * (chargeSubscription, outside the schedule) and the update commits with that charge; a decline changes
 * nothing and answers the decline. Everything else commits in one transaction.
 */
export async function updateSubscription(
  ctx: MerchantContext,
  input: UpdateSubscription,
): Promise<SubscriptionBody> {
  const switching = await inTransaction(ctx.em, async (em) => {
    const subscription = await findSubscription(em, ctx.merchantId, input.subscriptionId);
    refuseEnded(subscription);
    if (input.planId === undefined || input.planId === subscription.plan?.id || input.status === 'CANCELED')
      return 0;
    const newPlan = await switchTarget(em, ctx.merchantId, subscription, input.planId, 'planId');
    const today = calendarDate(await callNow(ctx, em));
    return switchChargeMinor(subscription, newPlan, input.quantity ?? subscription.quantity, today);
  });
  if (switching === 0) {
    return inTransaction(ctx.em, async (em) => {
      const answer = presentSubscription(await applyUpdate(ctx, em, input, await callNow(ctx, em), false));
      await ctx.keyed?.record(em, answer);
      return answer;
    });
  }
  const now = await callNow(ctx, ctx.em);
  const outcome = await chargeSubscription(ctx, {
    subscriptionId: input.subscriptionId,
    period: null,
    kind: 'SWITCH',
    amountMinor: switching,
    dueDate: calendarDate(now),
    chargeInfo: { chargeDescription: `Plan switch to ${input.planId}` },
    onCharged: async (em, charged) => {
      const subscription = await applyUpdate(ctx, em, input, now, true);
      return presentSubscription(subscription, presentCharge(subscription, await charged.read()));
    },
  });
  if (outcome.outcome === 'DECLINED') throw outcome.error;
  return (outcome as { answer: SubscriptionBody }).answer;
}

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
  const now = await callNow(ctx, ctx.em);
  const outcome = await chargeSubscription(ctx, {
    subscriptionId: subscription.id,
    period: null,
    kind: 'MERCHANT',
    amountMinor,
    dueDate: calendarDate(now),
    chargeInfo: input.chargeInfo,
    onCharged: async (_em, charged) => ({ chargeId: charged.id }),
  });
  if (outcome.outcome === 'DECLINED') throw outcome.error;
  return { chargeId: outcome.chargeId };
}

/**
 * The sandbox's run-specific (docs/recurring.md): where the original charges a subscription at once without
 * touching its dates, Paywire moves the merchant's clock to the subscription's next charge (or retry) and wakes
 * the renewal worker, so the charge, its IPNs and every date after it are what that day brings.
 */
export async function runSpecific(ctx: MerchantContext, subscriptionId: number): Promise<void> {
  if (ctx.mode !== 'sandbox')
    throw new DomainError('RESOURCE_NOT_FOUND', 'run-specific exists in sandbox mode only');
  const [due] = await executeParameterized<{ status: string; due_at: string | null }>(
    ctx.em,
    subscriptionDueAt,
    [subscriptionId, ctx.merchantId],
  );
  if (!due) throw subscriptionNotFound(subscriptionId);
  if (due.status !== 'ACTIVE' || due.due_at === null) {
    throw new DomainError(
      'INVALID_STATUS',
      `subscription ${subscriptionId} is ${due.status}: no charge is due`,
      {
        name: 'subscriptionId',
        messageValue: String(subscriptionId),
      },
    );
  }
  const now = await callNow(ctx, ctx.em);
  // the driver hands timestamps over as text
  const dueMs = new Date(due.due_at).getTime();
  await advanceClock(ctx, Math.max(0, Math.ceil((dueMs - now.getTime()) / 1000)));
}
