import { z } from 'zod';

/** Merchant API credentials are compared exactly as sent: never trimmed, never normalised. */
export const credentialLimits = { username: 100, password: 200 } as const;

/**
 * The shortest password any path may set (the merchant CLI, the launcher, the APIs). Logins still accept
 * shorter ones set before the rule, until they are changed.
 */
export const minimumPasswordLength = 12;

/** Whether a password may be set: long enough, and a credential a login could use. */
export const settablePassword = (username: string, password: string): boolean =>
  password.length >= minimumPasswordLength && usableCredentials(username, password);

/**
 * Whether a credential could be a merchant's at all. Anything else is refused like a wrong password (401),
 * without a hash and without echoing it. NUL cannot be stored (PostgreSQL refuses it in text).
 */
export function usableCredentials(username: string, password: string): boolean {
  return (
    username.length >= 1 &&
    username.length <= credentialLimits.username &&
    password.length >= 1 &&
    password.length <= credentialLimits.password &&
    !username.includes('\u0000') &&
    !password.includes('\u0000')
  );
}

/**
 * An operator's merchant (`npm run merchant -- create`, core's `merchants.save` admin procedure): created, or its
 * password set. Refused unless settable; the message never echoes the password.
 */
export const saveMerchantInput = z
  .object({ username: z.string(), password: z.string() })
  .refine((input) => settablePassword(input.username, input.password), {
    message: `a username of 1-${credentialLimits.username} and a password of ${minimumPasswordLength}-${credentialLimits.password} characters, without NUL, are required`,
    path: ['password'],
  });

/**
 * A login attempt. Plain strings on purpose: an unusable credential is a refused login, never a validation
 * error that would echo it. The client address is the one the caller (the facade) saw, for the limits.
 */
export const credentialsInput = z.object({
  username: z.string(),
  password: z.string(),
  clientAddress: z.string().max(100).optional(),
});

export type Credentials = z.input<typeof credentialsInput>;

/**
 * Core's answer to a login attempt. `generation` moves whenever the merchant's password changes: a cached
 * verdict is good while its generation is the merchant's current one.
 */
export type LoginVerdict =
  | { outcome: 'accepted'; merchantId: number; generation: number }
  | { outcome: 'refused' }
  | { outcome: 'limited'; retryAfterSeconds: number };

/** The current credentials generations of some merchants (the facade's cache check). */
export const credentialGenerationsInput = z.object({
  merchantIds: z.array(z.number().int().positive()).max(10_000),
});
