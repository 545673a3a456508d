import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

/** Merchant API passwords: salted scrypt, compared in constant time, rehashed when the cost rises. */
const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/**
 * OWASP's scrypt minimum: about 128 MiB and a few hundred milliseconds of CPU per hash. Only tests pass a
 * lower cost (core's `passwordCost` option, which main.ts never sets).
 */
export const productionCost: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };

const keyLength = 32;
/** scrypt needs 128 * N * r bytes; twice that leaves room for its own bookkeeping. */
const maxmemFor = ({ N, r }: ScryptCost) => 256 * N * r;

export async function hashPassword(password: string, cost: ScryptCost = productionCost): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, keyLength, { ...cost, maxmem: maxmemFor(cost) });
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export interface PasswordCheck {
  verified: boolean;
  /** The stored hash is cheaper than the cost asked for: hash the password again now that it is known. */
  needsRehash: boolean;
}

export async function verifyPassword(
  password: string,
  stored: string,
  cost: ScryptCost = productionCost,
): Promise<PasswordCheck> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  const storedCost = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !key || !Object.values(storedCost).every(Number.isSafeInteger)) {
    return { verified: false, needsRehash: false };
  }
  const expected = Buffer.from(key, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
    ...storedCost,
    maxmem: maxmemFor(storedCost),
  });
  const verified = timingSafeEqual(actual, expected);
  const cheaper = storedCost.N < cost.N || storedCost.r < cost.r || storedCost.p < cost.p;
  return { verified, needsRehash: verified && cheaper };
}

declare module '../context.ts' {
  interface CoreServices {
    /** What merchant passwords are hashed at: security/passwords.ts's productionCost outside tests. */
    passwordCost: ScryptCost;
  }
}
