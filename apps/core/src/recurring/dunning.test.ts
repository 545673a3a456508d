import { describe, expect, it } from 'vitest';
import { afterDecline, retryDays } from './dunning.ts';

const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n));

describe('dunning schedule', () => {
  it('retries on days 1, 3, 7, then weekly, and on the grace period last day', () => {
    expect(retryDays(1)).toEqual([1]);
    expect(retryDays(5)).toEqual([1, 3, 5]);
    expect(retryDays(7)).toEqual([1, 3, 7]);
    expect(retryDays(30)).toEqual([1, 3, 7, 14, 21, 28, 30]);
  });

  it('without a grace period a declined period is skipped; with one it is retried, then suspended', () => {
    expect(afterDecline(null, day(0), day(0))).toEqual({ kind: 'skip-period' });
    expect(afterDecline(0, day(0), day(0))).toEqual({ kind: 'skip-period' });
    expect(afterDecline(5, day(0), day(0))).toEqual({ kind: 'retry', at: day(1) });
    expect(afterDecline(5, day(0), day(3))).toEqual({ kind: 'retry', at: day(5) });
    expect(afterDecline(5, day(0), day(5))).toEqual({ kind: 'suspend' });
  });
});
