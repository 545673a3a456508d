/**
 * The banks' calendars debits settle on: TARGET2's for SEPA, the Federal Reserve's for ACH. Dates are taken
 * in UTC, as every date the service shows.
 */

const dayMs = 86_400_000;

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm), as a UTC midnight. */
export function easterSunday(year: number): Date {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return new Date(Date.UTC(year, month - 1, day));
}

const easterCache = new Map<number, number>();

function easterMs(year: number): number {
  let value = easterCache.get(year);
  if (value === undefined) {
    value = easterSunday(year).getTime();
    easterCache.set(year, value);
  }
  return value;
}

/** TARGET2: every day but Saturdays, Sundays, 1 January, Good Friday, Easter Monday, 1 May, 25 and 26 December. */
export function isTargetBusinessDay(date: Date): boolean {
  const weekday = date.getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  const month = date.getUTCMonth() + 1;
  const day = date.getUTCDate();
  if ((month === 1 && day === 1) || (month === 5 && day === 1)) return false;
  if (month === 12 && (day === 25 || day === 26)) return false;
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), day);
  const easter = easterMs(date.getUTCFullYear());
  return midnight !== easter - 2 * dayMs && midnight !== easter + dayMs;
}

/** The day of the month of a month's `nth` weekday (1-based), or of its last one for `nth` -1. */
function nthWeekday(year: number, month: number, weekday: number, nth: number): number {
  if (nth > 0) {
    const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
    return 1 + ((weekday - first + 7) % 7) + 7 * (nth - 1);
  }
  const lastDay = new Date(Date.UTC(year, month, 0));
  return lastDay.getUTCDate() - ((lastDay.getUTCDay() - weekday + 7) % 7);
}

/** The Federal Reserve's fixed-date holidays, as [month, day]. */
const fixedFederalHolidays = [
  [1, 1], // New Year's Day
  [6, 19], // Juneteenth
  [7, 4], // Independence Day
  [11, 11], // Veterans Day
  [12, 25], // Christmas Day
];

/** The Federal Reserve's holidays on a weekday of a month, as [month, weekday (0 Sunday), nth or -1 for the last]. */
const floatingFederalHolidays = [
  [1, 1, 3], // Martin Luther King Jr. Day
  [2, 1, 3], // Washington's Birthday
  [5, 1, -1], // Memorial Day
  [9, 1, 1], // Labor Day
  [10, 1, 2], // Columbus Day
  [11, 4, 4], // Thanksgiving Day
];

/**
 * The Federal Reserve's (its Financial Services' holiday schedule, which ACH follows): every day but
 * Saturdays, Sundays and its eleven holidays. A holiday falling on a Sunday is observed on the Monday after;
 * one falling on a Saturday is not moved (the Reserve Banks are open the Friday before).
 */
export function isFederalReserveBusinessDay(date: Date): boolean {
  const weekday = date.getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + 1;
  const day = date.getUTCDate();
  const yesterday = new Date(Date.UTC(year, month - 1, day - 1));
  const isFixedHoliday = (m: number, d: number) =>
    fixedFederalHolidays.some(([hm, hd]) => hm === m && hd === d);
  if (isFixedHoliday(month, day)) return false;
  if (weekday === 1 && isFixedHoliday(yesterday.getUTCMonth() + 1, yesterday.getUTCDate())) return false;
  return !floatingFederalHolidays.some(
    ([hm, hw, nth]) =>
      hm === month && hw === weekday && nthWeekday(year, month, hw as number, nth as number) === day,
  );
}

/**
 * The same time of day, `count` business days of a calendar (TARGET2's unless told) later, or earlier for a
 * negative count (the start day itself never counts).
 */
export function addBusinessDays(
  start: Date,
  count: number,
  isBusinessDay: (date: Date) => boolean = isTargetBusinessDay,
): Date {
  const step = count < 0 ? -dayMs : dayMs;
  let date = start;
  for (let counted = 0; counted < Math.abs(count); ) {
    date = new Date(date.getTime() + step);
    if (isBusinessDay(date)) counted += 1;
  }
  return date;
}
