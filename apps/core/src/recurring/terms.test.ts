import { describe, expect, it } from 'vitest';
import { isLastCharge, recurringAmountOf, unitAmountOf } from './terms.ts';

describe("a subscription's terms", () => {
  it("charge the override, else the plan, times the quantity, read from the subscription's own fields", () => {
    // the entity and the renewal worker's read (renewing.ts) both have these fields
    const plan = { recurringChargeMinor: 1000, chargeFrequency: 'MONTHLY', maxNumberOfCharges: null };
    expect(recurringAmountOf({ quantity: 3, overrideRecurringChargeMinor: null, plan })).toBe(3000);
    expect(recurringAmountOf({ quantity: 2, overrideRecurringChargeMinor: 250, plan })).toBe(500);
    // an override of 0 is a free period, not "no override"
    expect(unitAmountOf({ overrideRecurringChargeMinor: 0, plan })).toBe(0);
    // merchant-managed subscriptions have no plan
    expect(recurringAmountOf({ quantity: 1, overrideRecurringChargeMinor: null, plan: null })).toBe(0);
  });

  it('end after the only charge of a ONCE plan, or at maxNumberOfCharges after the initial one', () => {
    expect(isLastCharge({ chargeFrequency: 'ONCE', maxNumberOfCharges: null }, 1)).toBe(true);
    expect(isLastCharge({ chargeFrequency: 'MONTHLY', maxNumberOfCharges: 3 }, 3)).toBe(false);
    expect(isLastCharge({ chargeFrequency: 'MONTHLY', maxNumberOfCharges: 3 }, 4)).toBe(true);
    expect(isLastCharge({ chargeFrequency: 'MONTHLY', maxNumberOfCharges: null }, 500)).toBe(false);
  });
});
