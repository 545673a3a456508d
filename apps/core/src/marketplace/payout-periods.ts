import type { PayoutFrequency } from '@paywire/contracts';
import { addDays } from '../clock/calendar.ts';

/**
 * A vendor's payout periods, in days of its merchant's clock (UTC): DAILY a day, WEEKLY Monday to Sunday,
 * SEMIMONTHLY the 1st to the 15th and the 16th to the month's end, MONTHLY a calendar month. A period is
 * named by its end, the first day after it (exclusive); it is paid `delay` days after it ends.
 */

const day = (date: Date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));

/** The end of the last period ended by `date` (a period ending on `date` itself counts). */
export function lastPeriodEnd(frequency: PayoutFrequency, date: Date): Date {
  const today = day(date);
  switch (frequency) {
    case 'DAILY':
      return today;
    case 'WEEKLY':
      return addDays(today, -((today.getUTCDay() + 6) % 7)); // back to Monday
    case 'SEMIMONTHLY':
      return new Date(
        Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() >= 16 ? 16 : 1),
      );
    case 'MONTHLY':
      return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1));
  }
}

/** The end of the period after the one ending at `end`. */
export function nextPeriodEnd(frequency: PayoutFrequency, end: Date): Date {
  switch (frequency) {
    case 'DAILY':
      return addDays(end, 1);
    case 'WEEKLY':
      return addDays(end, 7);
    case 'SEMIMONTHLY':
      return end.getUTCDate() === 1
        ? new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), 16))
        : new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 1));
    case 'MONTHLY':
      return new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 1));
  }
}

/**
 * What a run does for a vendor due at the merchant's `now`: pay the balance as of the last period that ended
 * `delay` days ago or more, and look again on the day the next one is due.
 */
export function duePeriod(
  frequency: PayoutFrequency,
  delayDays: number,
  now: Date,
): { periodEnd: Date; nextPayoutOn: Date } {
  const periodEnd = lastPeriodEnd(frequency, addDays(now, -delayDays));
  return { periodEnd, nextPayoutOn: addDays(nextPeriodEnd(frequency, periodEnd), delayDays) };
}

/** YYYY-MM-DD of a day. */
export const isoDay = (date: Date) => date.toISOString().slice(0, 10);
