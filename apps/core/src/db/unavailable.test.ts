import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './unavailable.ts';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it("takes every code of class 08, letters included (PgBouncer's 08P01), and shutdowns and standbys", () => {
    for (const code of ['08000', '08006', '08P01', '57P01', '57P02', '57P03', '25006', 'ECONNRESET'])
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(true);
  });

  it('finds the cause under a wrapper, as a pipelined rider failure carries it', () => {
    const rider = new Error('a statement sent with the next one failed', {
      cause: withCode('08P01', 'server conn crashed?'),
    });
    expect(isDatabaseUnavailable(rider)).toBe(true);
  });

  it('is false for a statement the database refused', () => {
    for (const code of ['23505', '40001', '42P01', '0800', '08P012'])
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(false);
  });
});
