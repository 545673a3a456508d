import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DomainError,
  minorToAmount,
  type SwitchChargeAmount,
  type switchChargeAmountInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import type { RecurringPlan, Subscription } from './entities.ts';
import { requireDebitTerms } from './payment-source.ts';
import { findPlan, requireActivePlan } from './plans.ts';
import { termsOf } from './present.ts';
import { calendarDate, daysBetween, periodDueDate } from './schedule.ts';
import { findSubscription } from './subscriptions.ts';
import { recurringAmountOf } from './terms.ts';

/**
 * What switching to `newPlan` now charges (README, Recurring billing): the new plan's period for the
 * quantity, less the unused part of the period already paid (by days left of it), never below 0. A switch
 * to a plan without chargeOnPlanSwitch charges nothing now.
 */
export function switchChargeMinor(
  subscription: Subscription,
  newPlan: RecurringPlan,
  quantity: number,
  today: string,
): number {
  if (!newPlan.chargeOnPlanSwitch) return 0;
  const plan = subscription.plan as RecurringPlan;
  const newPeriod = recurringAmountOf({
    plan: newPlan,
    overrideRecurringChargeMinor: subscription.overrideRecurringChargeMinor,
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

/** The plan a subscription may switch to: ACTIVE, in its currency, and SEPA-chargeable if it pays by mandate. */
export async function switchTarget(
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
