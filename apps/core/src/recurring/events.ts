import type { EntityManager } from '@mikro-orm/postgresql';
import { minorToDecimal } from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { type EventParameters, ipnDate, recordEvent } from '../ipn/events.ts';
import { recurringAmountOf, type SubscriptionTerms } from './terms.ts';

/**
 * The IPN parameters of subscription events (see docs/conformance.md, IPN delivery). Each event
 * carries the subscription's ids (`subscriptionId`, `contractId` = the plan, `contractName`), the shopper
 * (`accountId`, names) and the money it is about; a charge's events add the payment's own parameters (card
 * or SEPA, as for one-time payments). Dates: `transactionDate` as every IPN (MM/dd/yyyy hh:mm:ss a, UTC),
 * `untilDate` (the day a paid period runs to, or the last day of a subscription that will not renew) as
 * MM/dd/yyyy. Every builder's event goes only to destinations whose flag for it is on (recordEvent).
 */
export interface SubscriptionFacts {
  id: number;
  planId: number;
  planName: string;
  shopperId: number;
  firstName: string;
  lastName: string;
  currency: string;
  /** What one renewal charges (plan amount or override, times the quantity). */
  recurringAmountMinor: number;
  /** The plan's chargeFrequency (MONTHLY, EVERY 2 WEEKS, ...). */
  chargeFrequency: string;
  /** yyyy-mm-dd by the merchant's clock; null when no charge is coming. */
  nextChargeDate: string | null;
  autoRenew: boolean;
}

/**
 * What the facts read of a subscription: the entity with its plan and shopper loaded (the API's events), or
 * the renewal worker's read of its row (renewing.ts), which has the entity's fields.
 */
export interface SubscriptionView extends SubscriptionTerms {
  id: number;
  currency: string;
  autoRenew: boolean;
  nextChargeDate?: string | null | undefined;
  plan?: (NonNullable<SubscriptionTerms['plan']> & { id: number; name: string }) | null | undefined;
  shopper: { id: number; firstName?: string | null | undefined; lastName?: string | null | undefined };
}

/** The facts of a subscription: what its events are built from. */
export function subscriptionFactsOf(subscription: SubscriptionView): SubscriptionFacts {
  const { plan, shopper } = subscription;
  return {
    id: subscription.id,
    planId: plan?.id ?? 0,
    planName: plan?.name ?? '',
    shopperId: shopper.id,
    firstName: shopper.firstName ?? '',
    lastName: shopper.lastName ?? '',
    currency: subscription.currency,
    recurringAmountMinor: recurringAmountOf(subscription),
    chargeFrequency: plan?.chargeFrequency ?? '',
    nextChargeDate: subscription.nextChargeDate ?? null,
    autoRenew: subscription.autoRenew,
  };
}

/** yyyy-mm-dd -> MM/dd/yyyy, the original's date without a time. */
export function ipnDay(date: string): string {
  const [year, month, day] = date.split('-');
  return `${month}/${day}/${year}`;
}

function subscriptionParameters(subscription: SubscriptionFacts, now: Date): EventParameters {
  return {
    subscriptionId: subscription.id,
    contractId: subscription.planId,
    contractName: subscription.planName,
    accountId: subscription.shopperId,
    firstName: subscription.firstName,
    lastName: subscription.lastName,
    currency: subscription.currency,
    transactionDate: ipnDate(now),
  };
}

/**
 * What the shopper agreed to, as the Recurring event repeats it: the amount, how often, and until when (a
 * subscription that will not renew, or one whose last charge this was, has no disclaimer).
 */
export function recurringDisclaimer(subscription: SubscriptionFacts): string {
  if (!subscription.autoRenew || subscription.nextChargeDate === null) return '';
  const amount = minorToDecimal(subscription.recurringAmountMinor, subscription.currency);
  return `This subscription renews automatically: ${amount} ${subscription.currency} charged ${subscription.chargeFrequency.toLowerCase()}, next on ${ipnDay(subscription.nextChargeDate)}, until it is canceled.`;
}

/**
 * Recurring: what a renewal's event adds to its payment's own parameters (card or SEPA, with its
 * referenceNumber and invoiceAmount). `subscription` is the state after the charge: its next charge date
 * is the untilDate, the day the period paid for runs to. Dated when the period fell due.
 */
export function recurringParameters(subscription: SubscriptionFacts, dueAt: Date): EventParameters {
  return {
    ...subscriptionParameters(subscription, dueAt),
    untilDate: subscription.nextChargeDate === null ? '' : ipnDay(subscription.nextChargeDate),
    recurringDisclaimer: recurringDisclaimer(subscription),
  };
}

/** SubCcFailure: a renewal declined; `payment` is the decline's own parameters (card, amount asked). */
export function subCcFailureParameters(
  payment: EventParameters,
  subscription: SubscriptionFacts,
  attemptedAt: Date,
  reason: string,
): EventParameters {
  return { ...payment, ...subscriptionParameters(subscription, attemptedAt), declineReason: reason };
}

/**
 * SubscriptionReminder: the next charge is coming. For a SEPA subscription `preNotification` is the
 * pre-notification of that debit (its text in English; translations at the link).
 */
export function subscriptionReminderParameters(
  subscription: SubscriptionFacts,
  chargeDate: string,
  now: Date,
  preNotification?: { text: string; translationRef: string; mandateId: string },
): EventParameters {
  return {
    ...subscriptionParameters(subscription, now),
    invoiceAmount: minorToDecimal(subscription.recurringAmountMinor, subscription.currency),
    untilDate: ipnDay(chargeDate),
    ...(preNotification
      ? {
          paymentMethod: 'SEPA_DIRECT_DEBIT',
          sepaMandateId: preNotification.mandateId,
          preNotificationText: preNotification.text,
          preNotificationTranslationRef: preNotification.translationRef,
        }
      : {}),
  };
}

/** Cancellation: the subscription ended now (status CANCELED by the merchant, or a refund canceling it). */
export function cancellationParameters(
  subscription: SubscriptionFacts,
  now: Date,
  cancelReason: string,
): EventParameters {
  return { ...subscriptionParameters(subscription, now), cancelReason };
}

/** CancelOnRenewal: autoRenew was turned off; the subscription runs to `lastDay` (yyyy-mm-dd) and ends. */
export function cancelOnRenewalParameters(
  subscription: SubscriptionFacts,
  lastDay: string,
  now: Date,
): EventParameters {
  return { ...subscriptionParameters(subscription, now), untilDate: ipnDay(lastDay) };
}

/** ContractChange: the subscription moved from `previousPlan` to its current plan. */
export function contractChangeParameters(
  subscription: SubscriptionFacts,
  previousPlan: { id: number; name: string },
  now: Date,
): EventParameters {
  return {
    ...subscriptionParameters(subscription, now),
    cancelledContractId: previousPlan.id,
    cancelledContractName: previousPlan.name,
    contractChargePrice: minorToDecimal(subscription.recurringAmountMinor, subscription.currency),
  };
}

/** Records a subscription event in the caller's transaction (the change it reports commits with it). */
export function recordSubscriptionEvent(
  ctx: MerchantContext,
  em: EntityManager,
  event:
    | 'Recurring'
    | 'SubCcFailure'
    | 'SubscriptionReminder'
    | 'Cancellation'
    | 'CancellationRefund'
    | 'CancelOnRenewal'
    | 'ContractChange',
  parameters: EventParameters,
): Promise<void> {
  return recordEvent(ctx, em, event, parameters);
}
