import { z } from 'zod';

/**
 * What an internal caller's credential lets it do. `any-merchant` is the facade's: it names the merchant
 * it acts for in `x-paywire-merchant`. `one-merchant` and `read-only` are bound to one merchant at issue
 * (read-only: queries only). `admin` manages credentials and processor accounts, nothing else.
 */
export const callerScopes = ['any-merchant', 'one-merchant', 'read-only', 'admin'] as const;
export type CallerScope = (typeof callerScopes)[number];

/** Scopes bound to one merchant: the credential names it, and no header can change it. */
export const merchantBoundScopes: readonly CallerScope[] = ['one-merchant', 'read-only'];

const callerName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,99}$/,
    'must be 1-100 of a-z, 0-9, ".", "_", "-", starting with a letter or digit',
  );

const maxLifetimeSeconds = 5 * 365 * 86_400;

export const issueCallerInput = z
  .object({
    name: callerName,
    scope: z.enum(callerScopes),
    merchantId: z.number().int().positive().max(999_999_999).optional(),
    /** Unset: valid until revoked. */
    expiresInSeconds: z.number().int().positive().max(maxLifetimeSeconds).optional(),
  })
  .refine((input) => merchantBoundScopes.includes(input.scope) === (input.merchantId !== undefined), {
    message: 'is required for the scopes one-merchant and read-only, and refused for the others',
    path: ['merchantId'],
  });

export const rotateCallerInput = z.object({
  name: callerName,
  /** How long the caller's current credentials stay valid beside the new one (default one hour). */
  graceSeconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .default(3600),
});

export const revokeCallerInput = z.union([
  z.object({ id: z.number().int().positive() }),
  z.object({ name: callerName }),
]);

export type IssueCallerInput = z.input<typeof issueCallerInput>;
export type RotateCallerInput = z.input<typeof rotateCallerInput>;
export type RevokeCallerInput = z.input<typeof revokeCallerInput>;

/** A credential as listed: never its secret, which only the issuer ever sees. */
export interface CallerCredentialView {
  id: number;
  name: string;
  scope: CallerScope;
  merchantId: number | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  state: 'active' | 'expired' | 'revoked';
}

/** A new credential, with its secret: shown this once. */
export interface IssuedCallerCredential extends CallerCredentialView {
  credential: string;
}
