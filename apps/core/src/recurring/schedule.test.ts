import { describe, expect, it } from 'vitest';
import { addCalendarDays, addFrequency, calendarDate, daysBetween, periodDueDate } from './schedule.ts';

describe('the subscription calendar', () => {
  it('keeps a month-end anchor: Jan 31, Feb 28 (29 in a leap year), Mar 31', () => {
    const schedule = { anchorDate: '2027-01-31', anchorPeriod: 1, frequency: 'MONTHLY' as const };
    expect([1, 2, 3, 4].map((period) => periodDueDate(schedule, period))).toEqual([
      '2027-01-31',
      '2027-02-28',
      '2027-03-31',
      '2027-04-30',
    ]);
    expect(addFrequency('2028-01-31', 'MONTHLY', 1)).toBe('2028-02-29');
  });

  it('steps every frequency from its anchor, across years', () => {
    const steps: Array<[Parameters<typeof addFrequency>[1], string]> = [
      ['ONCE', '2026-11-24'],
      ['DAILY', '2026-11-25'],
      ['WEEKLY', '2026-12-01'],
      ['EVERY 2 WEEKS', '2026-12-08'],
      ['MONTHLY', '2026-12-24'],
      ['EVERY 2 MONTHS', '2027-01-24'],
      ['QUARTERLY', '2027-02-24'],
      ['EVERY 6 MONTHS', '2027-05-24'],
      ['ANNUALLY', '2027-11-24'],
      ['EVERY 2 YEARS', '2028-11-24'],
      ['EVERY 3 YEARS', '2029-11-24'],
    ];
    for (const [frequency, date] of steps)
      expect(addFrequency('2026-11-24', frequency, 1), frequency).toBe(date);
    expect(addFrequency('2024-02-29', 'ANNUALLY', 1)).toBe('2025-02-28');
    expect(periodDueDate({ anchorDate: '2026-12-31', anchorPeriod: 3, frequency: 'QUARTERLY' }, 7)).toBe(
      '2027-12-31',
    );
  });

  it('counts days in UTC calendar dates', () => {
    expect(addCalendarDays('2026-12-30', 3)).toBe('2027-01-02');
    expect(daysBetween('2026-02-01', '2026-03-01')).toBe(28);
    expect(calendarDate(new Date('2026-11-24T23:59:59.999Z'))).toBe('2026-11-24');
  });
});
