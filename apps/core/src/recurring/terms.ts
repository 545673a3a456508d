/**
 * A subscription's terms, as pure rules every path applies alike: the API's entities, the renewal worker's
 * rows and the reminders all ask these, so a period costs the same and ends the same wherever it is read.
 */

/** What the terms are made of: the plan's amounts under the subscription's own overrides. */
export interface TermsInput {
  planRecurringMinor: number | null | undefined;
  overrideRecurringMinor: number | null | undefined;
  quantity: number;
}

/** What one period charges per unit: the subscription's override, else the plan's amount. */
export const unitAmountMinor = (terms: Omit<TermsInput, 'quantity'>): number =>
  terms.overrideRecurringMinor ?? terms.planRecurringMinor ?? 0;

/** What one period (a renewal) charges: the unit amount times the quantity. */
export const periodAmountMinor = (terms: TermsInput): number => unitAmountMinor(terms) * terms.quantity;

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

/** A subscription row's terms as SQL reads them (bigints arrive as text). */
export interface TermsColumns {
  recurring_charge_minor: string | null;
  override_recurring_charge_minor: string | null;
  quantity: number;
}

const minorOrNull = (value: string | null) => (value === null ? null : Number(value));

/** The terms of a row read with SQL, for the same rules as the entity's. */
export const termsOfRow = (row: TermsColumns): TermsInput => ({
  planRecurringMinor: minorOrNull(row.recurring_charge_minor),
  overrideRecurringMinor: minorOrNull(row.override_recurring_charge_minor),
  quantity: row.quantity,
});
