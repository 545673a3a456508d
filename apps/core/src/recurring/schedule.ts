import type { ChargeFrequency } from '@paywire/contracts';
import { addDays } from '../clock/calendar.ts';

/**
 * The calendar of subscriptions. Dates are yyyy-mm-dd of the merchant's clock read in UTC (README,
 * Recurring billing). A period's due date is computed from the schedule's anchor, never from the previous
 * date, so a month-end anchor keeps its day: Jan 31, Feb 28, Mar 31.
 */

const frequencySteps: Record<ChargeFrequency, { days?: number; months?: number }> = {
  ONCE: { months: 0 },
  DAILY: { days: 1 },
  WEEKLY: { days: 7 },
  'EVERY 2 WEEKS': { days: 14 },
  MONTHLY: { months: 1 },
  'EVERY 2 MONTHS': { months: 2 },
  QUARTERLY: { months: 3 },
  'EVERY 6 MONTHS': { months: 6 },
  ANNUALLY: { months: 12 },
  'EVERY 2 YEARS': { months: 24 },
  'EVERY 3 YEARS': { months: 36 },
};

const dayMs = 86_400_000;

function parse(date: string): Date {
  return new Date(`${date}T00:00:00Z`);
}

/** The merchant's calendar date of an instant of its clock. */
export function calendarDate(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** The calendar date `days` after `date` (before it when negative). */
export function addCalendarDays(date: string, days: number): string {
  return calendarDate(addDays(parse(date), days));
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((parse(to).getTime() - parse(from).getTime()) / dayMs);
}

/** `date` moved by `count` steps of the frequency; months clamp to the target month's last day. */
export function addFrequency(date: string, frequency: ChargeFrequency, count: number): string {
  const step = frequencySteps[frequency];
  if (step.days !== undefined) return addCalendarDays(date, step.days * count);
  const start = parse(date);
  const months = start.getUTCMonth() + (step.months ?? 0) * count;
  const year = start.getUTCFullYear() + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return calendarDate(new Date(Date.UTC(year, month, Math.min(start.getUTCDate(), lastDay))));
}

/** What places a subscription's periods: period n falls due `n - anchorPeriod` frequencies after the anchor. */
export interface Schedule {
  anchorDate: string;
  anchorPeriod: number;
  frequency: ChargeFrequency;
}

export function periodDueDate(schedule: Schedule, period: number): string {
  return addFrequency(schedule.anchorDate, schedule.frequency, period - schedule.anchorPeriod);
}
