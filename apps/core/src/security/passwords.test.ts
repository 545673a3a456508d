import { describe, expect, it } from 'vitest';
import { hashPassword, productionCost, verifyPassword } from './passwords.ts';

const cheap = { N: 2 ** 10, r: 8, p: 1 };

describe('passwords', () => {
  it('hashes at scrypt N=2^17 unless told otherwise', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored.split('$').slice(0, 4)).toEqual(['scrypt', '131072', '8', '1']);
    expect(productionCost.N).toBe(2 ** 17);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('correct horse', cheap)).not.toBe(await hashPassword('correct horse', cheap));
  });

  it('verifies the right password only', async () => {
    const stored = await hashPassword('correct horse', cheap);
    expect(await verifyPassword('correct horse', stored, cheap)).toEqual({
      verified: true,
      needsRehash: false,
    });
    expect(await verifyPassword('correct horsf', stored, cheap)).toEqual({
      verified: false,
      needsRehash: false,
    });
    expect(await verifyPassword('correct horse', 'plain-text', cheap)).toEqual({
      verified: false,
      needsRehash: false,
    });
  });

  it('asks for a rehash of a proved password stored at less than the cost asked for', async () => {
    const old = await hashPassword('correct horse', { N: 2 ** 9, r: 8, p: 1 });
    expect(await verifyPassword('correct horse', old, cheap)).toEqual({ verified: true, needsRehash: true });
    expect(await verifyPassword('wrong horse', old, cheap)).toEqual({ verified: false, needsRehash: false });
  });
});
