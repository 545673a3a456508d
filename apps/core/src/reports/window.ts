import { DomainError, type ReportPeriodInput, type ReportWindow } from '@paywire/contracts';

/**
 * The original reports in Pacific Standard Time all year (UTC-8, no daylight saving), so its dates and
 * periods are read in that zone here too, on the merchant's clock.
 */
export const reportingOffsetMinutes = -8 * 60;

/** The longest CUSTOM range we run (the original is silent; docs/reports.md). */
export const maxCustomDays = 366;

/** The longest window any period resolves to: LAST_12_MONTHS from the first of its month until now. */
const maxWindowDays = 400;

const dayMs = 86_400_000;

/** Midnight of a reporting-zone date (YYYY-MM-DD) as an instant. */
function startOfDay(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) - reportingOffsetMinutes * 60_000;
}

/** The reporting-zone calendar fields of an instant. */
function zoned(instant: number): { year: number; month: number; day: number } {
  const local = new Date(instant + reportingOffsetMinutes * 60_000);
  return { year: local.getUTCFullYear(), month: local.getUTCMonth(), day: local.getUTCDate() };
}

/** The first instant of a reporting-zone month, months counted from the year's January (may overflow). */
function startOfMonth(year: number, month: number): number {
  return Date.UTC(year, month, 1) - reportingOffsetMinutes * 60_000;
}

const invalid = (description: string, name: string, value?: string) =>
  new DomainError('INVALID_INPUT', description, {
    name,
    ...(value === undefined ? {} : { messageValue: value }),
  });

/** The instants a period covers, by the merchant's clock `now`. */
export function resolveWindow(input: ReportPeriodInput, now: Date): ReportWindow {
  const { period } = input;
  if (period === undefined) throw invalid('period is required', 'period');
  const at = now.getTime();
  const today = zoned(at);
  const startOfToday = Date.UTC(today.year, today.month, today.day) - reportingOffsetMinutes * 60_000;
  const window = (from: number, to: number) => ({
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
  });
  switch (period) {
    case 'THIS_MONTH':
      return window(startOfMonth(today.year, today.month), at);
    case 'LAST_WEEK':
      return window(startOfToday - 7 * dayMs, startOfToday);
    case 'LAST_MONTH':
      return window(startOfMonth(today.year, today.month - 1), startOfMonth(today.year, today.month));
    case 'LAST_3_MONTHS':
      return window(startOfMonth(today.year, today.month - 3), at);
    case 'LAST_6_MONTHS':
      return window(startOfMonth(today.year, today.month - 6), at);
    case 'LAST_12_MONTHS':
      return window(startOfMonth(today.year, today.month - 12), at);
    case 'CUSTOM':
      return customWindow(input);
  }
}

/**
 * A window a page token brought back: the caller's own text, so it is held to what a period could have
 * resolved to (a longer one would only make a larger report than any request may ask for).
 */
export function checkedWindow(window: ReportWindow): ReportWindow {
  const span = Date.parse(window.to) - Date.parse(window.from);
  if (!(span > 0 && span <= maxWindowDays * dayMs)) {
    throw invalid('not a page token of this report', 'nextPageToken');
  }
  return window;
}

function customWindow({ from_date, to_date, from_time, to_time }: ReportPeriodInput): ReportWindow {
  if (from_date === undefined) throw invalid('from_date is required for a CUSTOM period', 'from_date');
  if (to_date === undefined) throw invalid('to_date is required for a CUSTOM period', 'to_date');
  const from = startOfDay(from_date) + secondsOf(from_time ?? '00:00:00') * 1000;
  // to_time is the last second reported (23:59:59 by default), so the window ends a second after it
  const to = startOfDay(to_date) + (secondsOf(to_time ?? '23:59:59') + 1) * 1000;
  if (from >= to) throw invalid('Invalid Date Range: from_date is after to_date', 'from_date', from_date);
  if (to - from > maxCustomDays * dayMs) {
    throw invalid(`Invalid Date Range: at most ${maxCustomDays} days`, 'to_date', to_date);
  }
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

function secondsOf(time: string): number {
  const [hours = 0, minutes = 0, seconds = 0] = time.split(':').map(Number);
  return hours * 3600 + minutes * 60 + seconds;
}

/** MM/DD/YYYY of an instant in the reporting zone, as the original writes dates. */
export function reportingDate(instant: string): string {
  const { year, month, day } = zoned(Date.parse(instant));
  return `${String(month + 1).padStart(2, '0')}/${String(day).padStart(2, '0')}/${year}`;
}

/** The original's date_range: the first and last day covered. */
export function dateRangeOf(window: ReportWindow): string {
  return `${reportingDate(window.from)} - ${reportingDate(new Date(Date.parse(window.to) - 1).toISOString())}`;
}
