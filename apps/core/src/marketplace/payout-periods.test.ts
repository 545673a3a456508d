import { describe, expect, it } from 'vitest';
import { duePeriod, isoDay, lastPeriodEnd, nextPeriodEnd } from './payout-periods.ts';

const at = (text: string) => new Date(`${text}T13:45:00Z`);

describe('payout periods', () => {
  it('end where the reference frequency says, the end day itself included', () => {
    expect(isoDay(lastPeriodEnd('DAILY', at('2026-11-26')))).toBe('2026-11-26');
    expect(isoDay(lastPeriodEnd('WEEKLY', at('2026-11-26')))).toBe('2026-11-23'); // a Thursday: Monday
    expect(isoDay(lastPeriodEnd('WEEKLY', at('2026-11-23')))).toBe('2026-11-23');
    expect(isoDay(lastPeriodEnd('SEMIMONTHLY', at('2026-11-15')))).toBe('2026-11-01');
    expect(isoDay(lastPeriodEnd('SEMIMONTHLY', at('2026-11-16')))).toBe('2026-11-16');
    expect(isoDay(lastPeriodEnd('MONTHLY', at('2026-11-30')))).toBe('2026-11-01');
  });

  it('follow each other without a gap', () => {
    expect(isoDay(nextPeriodEnd('SEMIMONTHLY', at('2026-12-16')))).toBe('2027-01-01');
    expect(isoDay(nextPeriodEnd('SEMIMONTHLY', at('2027-01-01')))).toBe('2027-01-16');
    expect(isoDay(nextPeriodEnd('MONTHLY', at('2026-12-01')))).toBe('2027-01-01');
    expect(isoDay(nextPeriodEnd('WEEKLY', at('2026-11-23')))).toBe('2026-11-30');
  });

  it('are paid the delay after they end', () => {
    const due = duePeriod('MONTHLY', 5, at('2026-12-05'));
    expect(isoDay(due.periodEnd)).toBe('2026-11-01'); // December 1 + 5 days is the 6th: November waits
    expect(isoDay(due.nextPayoutOn)).toBe('2026-12-06');
    expect(isoDay(duePeriod('MONTHLY', 5, at('2026-12-06')).periodEnd)).toBe('2026-12-01');
  });
});
