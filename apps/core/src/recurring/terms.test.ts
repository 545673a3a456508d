import { describe, expect, it } from 'vitest';
import { isLastCharge, periodAmountMinor, termsOfRow, unitAmountMinor } from './terms.ts';

describe("a subscription's terms", () => {
  it('charge the override, else the plan, times the quantity', () => {
    expect(periodAmountMinor({ planRecurringMinor: 1000, overrideRecurringMinor: null, quantity: 3 })).toBe(
      3000,
    );
    expect(periodAmountMinor({ planRecurringMinor: 1000, overrideRecurringMinor: 250, quantity: 2 })).toBe(
      500,
    );
    // an override of 0 is a free period, not "no override"
    expect(unitAmountMinor({ planRecurringMinor: 1000, overrideRecurringMinor: 0 })).toBe(0);
    // merchant-managed subscriptions have no plan
    expect(periodAmountMinor({ planRecurringMinor: null, overrideRecurringMinor: null, quantity: 1 })).toBe(
      0,
    );
  });

  it('read the same from a SQL row (bigints as text) as from the entity', () => {
    const row = { recurring_charge_minor: '1999', override_recurring_charge_minor: null, quantity: 2 };
    expect(periodAmountMinor(termsOfRow(row))).toBe(3998);
  });

  it('end after the only charge of a ONCE plan, or at maxNumberOfCharges after the initial one', () => {
    expect(isLastCharge({ chargeFrequency: 'ONCE', maxNumberOfCharges: null }, 1)).toBe(true);
    expect(isLastCharge({ chargeFrequency: 'MONTHLY', maxNumberOfCharges: 3 }, 3)).toBe(false);
    expect(isLastCharge({ chargeFrequency: 'MONTHLY', maxNumberOfCharges: 3 }, 4)).toBe(true);
    expect(isLastCharge({ chargeFrequency: 'MONTHLY', maxNumberOfCharges: null }, 500)).toBe(false);
  });
});
