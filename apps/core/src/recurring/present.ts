import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type ChargeType,
  minorToAmount,
  type SubscriptionBody,
  type SubscriptionChargeBody,
} from '@paywire/contracts';
import { presentSplit } from '../marketplace/splits.ts';
import { SepaDebit } from '../sepa/entities.ts';
import type { Subscription, SubscriptionCharge } from './entities.ts';
import { presentPaymentSource } from './payment-source.ts';
import { recurringAmountOf, unitAmountOf } from './terms.ts';

/** What one period of a subscription costs and how it starts: the plan's terms under the subscription's overrides. */
export function termsOf(subscription: Subscription) {
  const plan = subscription.plan;
  return {
    recurringMinor: unitAmountOf(subscription),
    periodMinor: recurringAmountOf(subscription),
    initialMinor: subscription.overrideInitialChargeMinor ?? plan?.initialChargeMinor ?? null,
    trialDays: subscription.overrideTrialPeriodDays || plan?.trialPeriodDays || 0,
  };
}

export function presentSubscription(
  subscription: Subscription,
  charge?: SubscriptionChargeBody,
): SubscriptionBody {
  const { plan, currency } = subscription;
  const money = (minor: number | null | undefined) =>
    minor == null ? undefined : minorToAmount(minor, currency);
  const defined = <T extends object>(fields: T) =>
    Object.fromEntries(Object.entries(fields).filter(([, value]) => value != null)) as {
      [K in keyof T]?: NonNullable<T[K]>;
    };
  return {
    subscriptionId: subscription.id,
    ...(plan ? { planId: plan.id } : {}),
    vaultedShopperId: subscription.shopper.id,
    status: subscription.status,
    quantity: subscription.quantity,
    ...defined({
      softDescriptor: subscription.softDescriptor,
      descriptorPhoneNumber: subscription.descriptorPhoneNumber,
      chargeFrequency: plan?.chargeFrequency,
      trialPeriodDays: plan?.trialPeriodDays,
      overrideTrialPeriodDays: subscription.overrideTrialPeriodDays,
      recurringChargeAmount: money(plan?.recurringChargeMinor),
      overrideRecurringChargeAmount: money(subscription.overrideRecurringChargeMinor),
    }),
    currency,
    ...defined({
      initialChargeAmount: money(plan?.initialChargeMinor),
      overrideInitialChargeAmount: money(subscription.overrideInitialChargeMinor),
    }),
    autoRenew: subscription.autoRenew,
    ...(subscription.nextChargeDate ? { nextChargeDate: subscription.nextChargeDate } : {}),
    paymentSource: presentPaymentSource(subscription),
    ...(charge ? { charge } : {}),
    ...(subscription.vendorSplit ? presentSplit(subscription.vendorSplit, currency) : {}),
  };
}

/** A SEPA charge shows its debit's state; a card charge is a captured sale. */
export async function presentCharges(
  em: EntityManager,
  subscription: Subscription,
  charges: SubscriptionCharge[],
): Promise<SubscriptionChargeBody[]> {
  const debitIds = charges.flatMap((charge) => (charge.sepaDebitId ? [charge.sepaDebitId] : []));
  const debits =
    debitIds.length === 0
      ? []
      : await em.find(SepaDebit, { id: { $in: debitIds }, merchantId: subscription.merchantId });
  const statuses = new Map(
    debits.map((debit) => [debit.id, debit.status.toLowerCase() as Lowercase<typeof debit.status>]),
  );
  return charges.map((charge) => presentCharge(subscription, charge, statuses.get(charge.sepaDebitId ?? 0)));
}

export function presentCharge(
  subscription: Subscription,
  charge: SubscriptionCharge,
  sepaStatus: SubscriptionChargeBody['processingInfo']['processingStatus'] = 'pending',
): SubscriptionChargeBody {
  const chargeType: ChargeType = charge.kind === 'INITIAL' ? 'INITIAL' : 'RECURRING';
  const info = Object.fromEntries(
    Object.entries({
      chargeDescription: charge.description,
      fromDate: charge.fromDate,
      toDate: charge.toDate,
    }).filter(([, value]) => value != null),
  );
  return {
    chargeId: charge.id,
    subscriptionId: subscription.id,
    ...(subscription.plan ? { planId: subscription.plan.id } : {}),
    vaultedShopperId: subscription.shopper.id,
    transactionId: String(charge.cardTransactionId ?? charge.sepaDebitId),
    transactionDate: charge.dueDate,
    amount: minorToAmount(charge.amountMinor, charge.currency),
    currency: charge.currency,
    ...(subscription.softDescriptor ? { softDescriptor: subscription.softDescriptor } : {}),
    paymentSource: presentPaymentSource(subscription),
    chargeInfo: { ...info, chargeType },
    processingInfo: {
      processingStatus: charge.sepaDebitId ? sepaStatus : 'success',
    },
  };
}
