import type { EntityManager } from '@mikro-orm/postgresql';
import {
  amountInMinorUnits,
  DomainError,
  type SubscriptionBody,
  type updateSubscriptionInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { kickRenewals } from '../jobs/queues.ts';
import { resolveSplitTerms } from '../marketplace/splits.ts';
import { chargeOffSchedule } from './charge.ts';
import type { RecurringPlan, Subscription } from './entities.ts';
import {
  cancellationParameters,
  cancelOnRenewalParameters,
  contractChangeParameters,
  recordSubscriptionEvent,
  subscriptionFactsOf,
} from './events.ts';
import { requireDebitTerms, resolvePayer } from './payment-source.ts';
import { presentCharge, presentSubscription, termsOf } from './present.ts';
import { addFrequency, calendarDate } from './schedule.ts';
import { findSubscription } from './subscriptions.ts';
import { switchChargeMinor, switchTarget } from './switching.ts';

type UpdateSubscription = z.output<typeof updateSubscriptionInput>;

/** An update being applied: who asks, under which transaction, at what time. */
interface Applying {
  ctx: MerchantContext;
  em: EntityManager;
  input: UpdateSubscription;
  now: Date;
  today: string;
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
function resumeSuspended(subscription: Subscription, today: string): void {
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

/** What the update may not ask of this subscription, refused before anything changes. */
function refuseForbidden(subscription: Subscription, input: UpdateSubscription): void {
  if (input.vaultedShopperId !== undefined && input.vaultedShopperId !== subscription.shopper.id) {
    throw new DomainError('NON_UPDATABLE_FIELD', 'vaultedShopperId: a subscription keeps its shopper', {
      name: 'vaultedShopperId',
      messageValue: String(input.vaultedShopperId),
    });
  }
  if (input.status === 'CANCELED') return;
  if (input.status === 'ACTIVE' && subscription.status === 'SUSPENDED' && !input.paymentSource) {
    throw new DomainError(
      'INVALID_STATUS',
      'status: a SUSPENDED subscription resumes when its payment source is updated',
      { name: 'status', messageValue: 'ACTIVE' },
    );
  }
}

async function cancel(applying: Applying, subscription: Subscription): Promise<void> {
  const { ctx, em, now } = applying;
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
}

/** A new card or mandate; a SUSPENDED subscription resumes with it. */
async function replacePaymentSource(
  { ctx, em, input, now, today }: Applying,
  subscription: Subscription,
): Promise<void> {
  if (!input.paymentSource) return;
  const payer = await resolvePayer(ctx, em, subscription.shopper, input.paymentSource, now);
  if (payer.mandate)
    requireDebitTerms(payer.mandate.scheme, {
      currency: subscription.currency,
      frequency: subscription.plan?.chargeFrequency,
    });
  subscription.card = payer.card ?? null;
  subscription.sepaMandate = payer.mandate ?? null;
  if (subscription.status === 'SUSPENDED') {
    resumeSuspended(subscription, today);
    await kickRenewals(ctx.jobs, em); // charged in seconds, not at the next minute's run
  }
}

/** The fields an update sets as sent, with no further consequence. */
function setPlainFields(subscription: Subscription, input: UpdateSubscription): void {
  if (input.quantity !== undefined) subscription.quantity = input.quantity;
  if (input.softDescriptor !== undefined) subscription.softDescriptor = input.softDescriptor;
  if (input.descriptorPhoneNumber !== undefined)
    subscription.descriptorPhoneNumber = input.descriptorPhoneNumber;
  if (input.overrideRecurringChargeAmount !== undefined) {
    subscription.overrideRecurringChargeMinor = amountInMinorUnits(
      input.overrideRecurringChargeAmount,
      subscription.currency,
      'overrideRecurringChargeAmount',
    );
  }
}

/** A plan-based subscription's next charge moved to a later day: its schedule continues from there. */
function reschedule(subscription: Subscription, input: UpdateSubscription, today: string): void {
  if (input.nextChargeDate === undefined) return;
  if (!subscription.plan) {
    throw new DomainError(
      'NON_UPDATABLE_FIELD',
      'nextChargeDate: a merchant-managed subscription has no schedule',
      { name: 'nextChargeDate' },
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

async function switchPlan(
  { ctx, em, input, now, today }: Applying,
  subscription: Subscription,
  switchCharged: boolean,
): Promise<void> {
  if (input.planId === undefined || input.planId === subscription.plan?.id) return;
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

/** New vendor terms replace the old for the charges to come, checked against what a renewal charges now. */
async function replaceVendorSplit({ ctx, em, input }: Applying, subscription: Subscription): Promise<void> {
  if (!input.vendorInfo && !input.vendorsInfo) return;
  subscription.vendorSplit = await resolveSplitTerms(em, ctx.merchantId, input, {
    amountsMinor: subscription.plan ? [termsOf(subscription).periodMinor] : [],
    currency: subscription.currency,
  });
}

async function setAutoRenew({ ctx, em, input, now, today }: Applying, subscription: Subscription) {
  if (input.autoRenew === undefined || input.autoRenew === subscription.autoRenew) return;
  subscription.autoRenew = input.autoRenew;
  if (input.autoRenew) return;
  await recordSubscriptionEvent(
    ctx,
    em,
    'CancelOnRenewal',
    cancelOnRenewalParameters(subscriptionFactsOf(subscription), subscription.nextChargeDate ?? today, now),
  );
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
  const applying: Applying = { ctx, em, input, now, today: calendarDate(now) };
  refuseForbidden(subscription, input);
  if (input.status === 'CANCELED') {
    await cancel(applying, subscription);
    return subscription;
  }
  await replacePaymentSource(applying, subscription);
  setPlainFields(subscription, input);
  reschedule(subscription, input, applying.today);
  await switchPlan(applying, subscription, switchCharged);
  await replaceVendorSplit(applying, subscription);
  await setAutoRenew(applying, subscription);
  await em.flush();
  return subscription;
}

/**
 * PUT /recurring/subscriptions/{id}. A plan switch to a plan with chargeOnPlanSwitch charges first
 * (chargeOffSchedule) and the update commits with that charge; a decline changes
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
  return chargeOffSchedule(
    ctx,
    {
      subscriptionId: input.subscriptionId,
      kind: 'SWITCH',
      amountMinor: switching,
      chargeInfo: { chargeDescription: `Plan switch to ${input.planId}` },
    },
    async (em, charged, now) => {
      const subscription = await applyUpdate(ctx, em, input, now, true);
      return presentSubscription(subscription, presentCharge(subscription, await charged.read()));
    },
  );
}
