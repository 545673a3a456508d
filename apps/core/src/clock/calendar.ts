/** Day arithmetic and date text, in UTC: pure, no clock read (clock.ts says what now is). */

const dayMs = 86_400_000;

/** `date` moved by whole days (back when `days` is negative). */
export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * dayMs);
}

/** A month, day, hour, minute or second as two digits. */
export const twoDigits = (value: number): string => String(value).padStart(2, '0');

/** MM/dd/yyyy in UTC, as the original writes a day. */
export function monthDayYear(date: Date): string {
  return `${twoDigits(date.getUTCMonth() + 1)}/${twoDigits(date.getUTCDate())}/${date.getUTCFullYear()}`;
}
