import { DomainError } from '@paywire/contracts';
import { describe, expect, it } from 'vitest';
import { checkedWindow, dateRangeOf, reportingDate, resolveWindow } from './window.ts';

// 2026-03-01 05:00 UTC is still February 28 in the reporting zone (UTC-8).
const now = new Date('2026-03-01T05:00:00Z');

describe('resolveWindow', () => {
  it('reads named periods in UTC-8 on the given clock', () => {
    expect(resolveWindow({ period: 'THIS_MONTH' }, now)).toEqual({
      from: '2026-02-01T08:00:00.000Z',
      to: '2026-03-01T05:00:00.000Z',
    });
    expect(resolveWindow({ period: 'LAST_MONTH' }, now)).toEqual({
      from: '2026-01-01T08:00:00.000Z',
      to: '2026-02-01T08:00:00.000Z',
    });
    expect(resolveWindow({ period: 'LAST_WEEK' }, now)).toEqual({
      from: '2026-02-21T08:00:00.000Z',
      to: '2026-02-28T08:00:00.000Z',
    });
    expect(resolveWindow({ period: 'LAST_12_MONTHS' }, now).from).toBe('2025-02-01T08:00:00.000Z');
  });

  it('takes CUSTOM dates as whole days, times when given', () => {
    expect(resolveWindow({ period: 'CUSTOM', from_date: '2026-01-30', to_date: '2026-01-31' }, now)).toEqual({
      from: '2026-01-30T08:00:00.000Z',
      to: '2026-02-01T08:00:00.000Z',
    });
    expect(
      resolveWindow(
        {
          period: 'CUSTOM',
          from_date: '2026-01-30',
          to_date: '2026-01-30',
          from_time: '05:25:02',
          to_time: '06:00:00',
        },
        now,
      ),
    ).toEqual({ from: '2026-01-30T13:25:02.000Z', to: '2026-01-30T14:00:01.000Z' });
  });

  it.each([
    [{}, 'period'],
    [{ period: 'CUSTOM' as const, to_date: '2026-01-31' }, 'from_date'],
    [{ period: 'CUSTOM' as const, from_date: '2026-01-31' }, 'to_date'],
    [{ period: 'CUSTOM' as const, from_date: '2026-02-01', to_date: '2026-01-31' }, 'from_date'],
    [{ period: 'CUSTOM' as const, from_date: '2024-01-01', to_date: '2026-01-31' }, 'to_date'],
  ])('refuses %o with INVALID_INPUT naming %s', (input, property) => {
    const error = (() => {
      try {
        resolveWindow(input, now);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).toMessage()).toMatchObject({
      errorName: 'INVALID_INPUT',
      code: 21001,
      invalidProperty: { name: property },
    });
  });
});

describe('checkedWindow', () => {
  it('takes what a period resolves to and refuses a longer or reversed window', () => {
    const window = resolveWindow({ period: 'LAST_12_MONTHS' }, now);
    expect(checkedWindow(window)).toBe(window);
    for (const bad of [
      { from: '2020-01-01T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z' },
      { from: '2026-01-02T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z' },
    ]) {
      expect(() => checkedWindow(bad)).toThrow(DomainError);
    }
  });
});

describe('reporting dates', () => {
  it('writes instants as the reporting-zone day, MM/DD/YYYY', () => {
    expect(reportingDate('2026-03-01T05:00:00Z')).toBe('02/28/2026');
    expect(dateRangeOf({ from: '2026-01-30T08:00:00.000Z', to: '2026-02-01T08:00:00.000Z' })).toBe(
      '01/30/2026 - 01/31/2026',
    );
  });
});
