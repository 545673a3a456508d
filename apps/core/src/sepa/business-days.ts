/**
 * The TARGET2 calendar SEPA settles on: every day but Saturdays, Sundays, 1 January, Good Friday, Easter
 * Monday, 1 May, 25 and 26 December. Dates are taken in UTC, as every date the service shows.
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

/**
 * The same time of day, `count` TARGET business days later, or earlier for a negative count (the start day
 * itself never counts).
 */
export function addBusinessDays(start: Date, count: number): Date {
  const step = count < 0 ? -dayMs : dayMs;
  let date = start;
  for (let counted = 0; counted < Math.abs(count); ) {
    date = new Date(date.getTime() + step);
    if (isTargetBusinessDay(date)) counted += 1;
  }
  return date;
}
