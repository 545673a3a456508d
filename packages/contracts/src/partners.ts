import { z } from 'zod';
import { credentialLimits, minimumPasswordLength } from './merchants.ts';
import { booleanInput, positiveId, text } from './primitives.ts';

/**
 * Partner users (docs/conformance.md, Partner users): console users a merchant creates for itself, or a
 * partner for a merchant it is linked to (`onbehalfofmid`), with the original's user permissions.
 */

/**
 * The original's user permissions (its cp-user-info type, without the schema's misspelt duplicates). Each is
 * a flag; `admin` grants all of them. docs/console.md says which console changes each allows.
 */
export const consolePermissions = [
  'admin',
  'allowAccountMaintenance',
  'allowRefunds',
  'allowLocator',
  'allowViewFinancialInfo',
  'allowTransferToVendor',
  'allowUserMaintenance',
  'allowReports',
  'allowProductMaintenance',
  'allowLicenceManagement',
  'allowManualOrderApproval',
  'allowAffiliateApproval',
  'allowAffiliateMaintenance',
  'allowRoyaltyMaintenance',
  'allowModifySubscriptions',
  'allowApiCredentials',
  'allowVirtualTerminal',
  'allowVirtualTerminalAdmin',
] as const;
export type ConsolePermission = (typeof consolePermissions)[number];
export type ConsolePermissions = Record<ConsolePermission, boolean>;

const permissionFields = Object.fromEntries(
  consolePermissions.map((name) => [name, booleanInput.default(false)]),
) as Record<ConsolePermission, z.ZodDefault<typeof booleanInput>>;

/** POST /cp/user[?onbehalfofmid=]: the user, its password and the permissions it is given (absent: false). */
export const createConsoleUserInput = z.object({
  firstName: text(100),
  lastName: text(100),
  email: z.email('must be an email address').max(200),
  // The original's rule: a unique username without special characters.
  username: z
    .string()
    .max(credentialLimits.username, `must be at most ${credentialLimits.username} characters`)
    .regex(/^[A-Za-z0-9._-]+$/, 'must be letters, digits, dots, underscores or hyphens'),
  password: z
    .string()
    .min(minimumPasswordLength, `must be ${minimumPasswordLength} to ${credentialLimits.password} characters`)
    .max(
      credentialLimits.password,
      `must be ${minimumPasswordLength} to ${credentialLimits.password} characters`,
    )
    .refine((password) => !password.includes('\u0000'), 'must not contain NUL characters'),
  onBehalfOfMid: positiveId.optional(),
  ...permissionFields,
});
export type CreateConsoleUser = z.output<typeof createConsoleUserInput>;

/** The created user (root cp-user-info): never its password. */
export type ConsoleUser = {
  userId: number;
  /** The merchant whose console the user signs in to. */
  merchantId: number;
  username: string;
  firstName: string;
  lastName: string;
  email: string;
} & ConsolePermissions;
