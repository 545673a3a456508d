import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './breaker.ts';

const settings = { failures: 3, pauseMs: 1_000, maxPauseMs: 3_000 };

describe('IPN circuit breaker', () => {
  it('opens after the set number of failures in a row; a success in between starts the count again', () => {
    const breaker = new CircuitBreaker(settings);
    expect([breaker.record(false, 0), breaker.record(false, 0)]).toEqual([false, false]);
    expect(breaker.clear).toBe(false);
    breaker.record(true, 0);
    expect(breaker.clear).toBe(true);
    expect([0, 1, 2].map(() => breaker.record(false, 100))).toEqual([false, false, true]);
    expect(breaker).toMatchObject({ state: 'open', reopenAt: 1_100 });
  });

  it('lets a probe go when the pause is over; a failed probe doubles the pause, up to the maximum', () => {
    const breaker = new CircuitBreaker(settings);
    for (let n = 0; n < 3; n++) breaker.record(false, 0);
    expect(breaker.probeDue(999)).toBe(false);
    expect(breaker.probeDue(1_000)).toBe(true);
    // Attempts sent before the circuit opened change nothing while it is open.
    expect(breaker.record(false, 1_000)).toBe(false);
    breaker.startProbe();
    expect(breaker.probeDue(5_000)).toBe(false);
    expect(breaker.record(false, 1_000)).toBe(true);
    expect(breaker).toMatchObject({ state: 'open', reopenAt: 3_000 });
    breaker.startProbe();
    breaker.record(false, 3_000);
    expect(breaker.reopenAt).toBe(6_000); // 4 s capped at 3 s
  });

  it('closes on a successful probe, and then needs the full count of failures to open again', () => {
    const breaker = new CircuitBreaker(settings);
    for (let n = 0; n < 3; n++) breaker.record(false, 0);
    breaker.startProbe();
    breaker.record(true, 1_000);
    expect(breaker.state).toBe('closed');
    expect(breaker.clear).toBe(true);
    expect([0, 1].map(() => breaker.record(false, 2_000))).toEqual([false, false]);
    expect(breaker.record(false, 2_000)).toBe(true);
    expect(breaker.reopenAt).toBe(3_000); // the first pause again, not a doubled one
  });
});
