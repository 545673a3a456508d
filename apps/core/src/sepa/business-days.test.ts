import { describe, expect, it } from 'vitest';
import {
  addBusinessDays,
  easterSunday,
  isFederalReserveBusinessDay,
  isTargetBusinessDay,
} from './business-days.ts';

const day = (iso: string) => new Date(`${iso}T10:30:00Z`);
const dateOf = (date: Date) => date.toISOString().slice(0, 10);

describe('TARGET business days', () => {
  it('knows Easter Sunday across years (published dates)', () => {
    const easter: Record<number, string> = {
      2019: '2019-04-21',
      2024: '2024-03-31',
      2025: '2025-04-20',
      2026: '2026-04-05',
      2027: '2027-03-28',
      2028: '2028-04-16',
      2038: '2038-04-25',
    };
    for (const [year, iso] of Object.entries(easter)) expect(dateOf(easterSunday(Number(year)))).toBe(iso);
  });

  it('closes on weekends, 1 January, Good Friday, Easter Monday, 1 May, 25 and 26 December', () => {
    const closed = [
      '2026-03-07', // Saturday
      '2026-03-08', // Sunday
      '2026-01-01',
      '2026-04-03', // Good Friday
      '2026-04-06', // Easter Monday
      '2025-04-18',
      '2025-04-21',
      '2027-03-26',
      '2027-03-29',
      '2026-05-01',
      '2026-12-25',
      '2026-12-26',
      '2025-12-25',
      '2025-12-26',
    ];
    for (const iso of closed) expect(isTargetBusinessDay(day(iso)), iso).toBe(false);
  });

  it('opens on ordinary weekdays, Easter Sunday-adjacent Thursdays and Tuesdays, 24 and 31 December', () => {
    for (const iso of ['2026-03-09', '2026-04-02', '2026-04-07', '2026-12-24', '2026-12-31', '2027-01-04']) {
      expect(isTargetBusinessDay(day(iso)), iso).toBe(true);
    }
  });

  it('counts 5 business days over a weekend, keeping the time of day', () => {
    expect(addBusinessDays(day('2026-03-09'), 5).toISOString()).toBe('2026-03-16T10:30:00.000Z'); // Mon -> Mon
    expect(dateOf(addBusinessDays(day('2026-03-12'), 5))).toBe('2026-03-19'); // Thu -> Thu
    expect(dateOf(addBusinessDays(day('2026-03-07'), 5))).toBe('2026-03-13'); // Sat -> Fri
  });

  it('skips Easter: from the Thursday before Good Friday', () => {
    // 2026: Thu 2 Apr; Fri 3 and Mon 6 closed -> 7, 8, 9, 10, 13 Apr.
    expect(dateOf(addBusinessDays(day('2026-04-02'), 5))).toBe('2026-04-13');
    // 2025: Thu 17 Apr; Fri 18, Mon 21 closed -> 22, 23, 24, 25, 28 Apr.
    expect(dateOf(addBusinessDays(day('2025-04-17'), 5))).toBe('2025-04-28');
  });

  it('skips 1 May and Christmas into the new year', () => {
    // 2026: Thu 30 Apr; Fri 1 May closed -> 4, 5, 6, 7, 8 May.
    expect(dateOf(addBusinessDays(day('2026-04-30'), 5))).toBe('2026-05-08');
    // 2026: Wed 23 Dec -> 24, (25, 26 Sat, 27 Sun closed) 28, 29, 30, 31 Dec.
    expect(dateOf(addBusinessDays(day('2026-12-23'), 5))).toBe('2026-12-31');
    // 2025: Wed 24 Dec -> (25, 26 closed, 27/28 weekend) 29, 30, 31, (1 Jan closed) 2 Jan, 5 Jan.
    expect(dateOf(addBusinessDays(day('2025-12-24'), 5))).toBe('2026-01-05');
  });

  it('counts backwards for a negative count (a SEPA pre-notification before its debit)', () => {
    expect(dateOf(addBusinessDays(day('2026-03-16'), -5))).toBe('2026-03-09'); // Mon -> Mon
    // 2026: Mon 13 Apr; Mon 6 and Fri 3 closed -> 10, 9, 8, 7, 2 Apr.
    expect(dateOf(addBusinessDays(day('2026-04-13'), -5))).toBe('2026-04-02');
  });
});

describe('Federal Reserve business days (ACH)', () => {
  it('closes on the published holidays of 2026 and 2027, a Sunday holiday observed on the Monday', () => {
    const closed = [
      '2026-01-01',
      '2026-01-19', // Martin Luther King Jr. Day
      '2026-02-16', // Washington's Birthday
      '2026-05-25', // Memorial Day
      '2026-06-19', // Juneteenth
      '2026-09-07', // Labor Day
      '2026-10-12', // Columbus Day
      '2026-11-11', // Veterans Day
      '2026-11-26', // Thanksgiving Day
      '2026-12-25',
      '2027-01-18',
      '2027-05-31',
      '2027-07-05', // Independence Day falls on Sunday 4 July
      '2027-11-25',
      '2022-12-26', // Christmas Day 2022 fell on a Sunday
    ];
    for (const iso of closed) expect(isFederalReserveBusinessDay(day(iso)), iso).toBe(false);
  });

  it('opens on the Friday before a Saturday holiday, and on the TARGET-only holidays', () => {
    const open = [
      '2026-07-03', // Independence Day 2026 is a Saturday: not moved
      '2027-06-18', // Juneteenth 2027 is a Saturday
      '2027-12-24', // Christmas Day 2027 is a Saturday
      '2026-04-03', // Good Friday
      '2026-04-06', // Easter Monday
      '2026-05-01',
      '2026-12-24',
      '2026-12-28',
      '2026-01-20',
    ];
    for (const iso of open) expect(isFederalReserveBusinessDay(day(iso)), iso).toBe(true);
  });

  it('counts an ACH debit past Thanksgiving, and a SEPA debit through it', () => {
    // Wed 25 Nov 2026: Thu 26 closed -> 27 Nov, 30 Nov, 1, 2, 3 Dec.
    expect(dateOf(addBusinessDays(day('2026-11-25'), 5, isFederalReserveBusinessDay))).toBe('2026-12-03');
    expect(dateOf(addBusinessDays(day('2026-11-25'), 5))).toBe('2026-12-02');
  });
});
