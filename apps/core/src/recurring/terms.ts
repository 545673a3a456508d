/**
 * A subscription's terms, as pure rules every path applies alike: the API's entities and the renewal
 * worker's reads (renewing.ts) have the same fields and ask these, so a period costs the same and ends the
 * same wherever it is read.
 */

/**
 * How many charges a plan makes at most: ONCE one; otherwise the initial charge (the first payment, after a
 * trial too) and maxNumberOfCharges after it, as the reference counts them (null: no limit).
 */
export const chargeLimit = (plan: {
  chargeFrequency: string;
  maxNumberOfCharges: number | null | undefined;
}) =>
  plan.chargeFrequency === 'ONCE' ? 1 : plan.maxNumberOfCharges == null ? null : plan.maxNumberOfCharges + 1;

/** Whether the charge that brings the count to `chargesMadeAfter` is the plan's last: then FINISHED. */
export function isLastCharge(
  plan: { chargeFrequency: string; maxNumberOfCharges: number | null | undefined },
  chargesMadeAfter: number,
): boolean {
  const limit = chargeLimit(plan);
  return limit !== null && chargesMadeAfter >= limit;
}

/**
 * What the terms read of a subscription: the entity has these fields, and so has the renewal worker's read
 * of its row (renewing.ts). A merchant-managed subscription has no plan.
 */
export interface SubscriptionTerms {
  quantity: number;
  overrideRecurringChargeMinor?: number | null | undefined;
  plan?:
    | {
        recurringChargeMinor: number;
        chargeFrequency: string;
        maxNumberOfCharges?: number | null | undefined;
      }
    | null
    | undefined;
}

/** What one period charges per unit: the subscription's override, else the plan's amount (none: 0). */
export const unitAmountOf = (subscription: Omit<SubscriptionTerms, 'quantity'>): number =>
  subscription.overrideRecurringChargeMinor ?? subscription.plan?.recurringChargeMinor ?? 0;

/** What one period (a renewal) of the subscription charges: the unit amount times the quantity. */
export const recurringAmountOf = (subscription: SubscriptionTerms): number =>
  unitAmountOf(subscription) * subscription.quantity;
