import { z } from 'zod';

/**
 * ECP/ACH: a US bank account as the original's alt-transactions (`ecpTransaction`) and vaulted shoppers
 * (`paymentSources.ecpInfo.ecp`) take it (docs/ach.md). Debits are in US dollars only.
 */

/** The account types the original lists (its SDKs' EcpAccountType). */
export const ecpAccountTypes = [
  'CONSUMER_CHECKING',
  'CONSUMER_SAVINGS',
  'CORPORATE_CHECKING',
  'CORPORATE_SAVINGS',
] as const;
export type EcpAccountType = (typeof ecpAccountTypes)[number];

/** The ABA check: digits weighted 3, 7, 1 in turn sum to a multiple of 10. */
export function routingNumberChecksumValid(routingNumber: string): boolean {
  const weights = [3, 7, 1];
  let sum = 0;
  for (const [index, digit] of [...routingNumber].entries()) sum += Number(digit) * (weights[index % 3] ?? 0);
  return sum % 10 === 0;
}

/** A routing (ABA) number: 9 digits passing the ABA check. The value is never part of a message. */
export const routingNumberInput = z
  .string()
  .trim()
  .regex(/^\d{9}$/, 'must be 9 digits')
  .refine(routingNumberChecksumValid, 'failed the ABA routing number check');

/** A DFI account number as a NACHA entry carries it: 4 to 17 digits. Never part of a message. */
export const accountNumberInput = z
  .string()
  .trim()
  .regex(/^\d{4,17}$/, 'must be 4 to 17 digits');

export const ecpAccountTypeInput = z.enum(ecpAccountTypes, `must be one of ${ecpAccountTypes.join(', ')}`);

/**
 * The account to debit. A vaulted shopper may leave out the numbers (its stored account is debited) or
 * name one by `publicAccountNumber` (its masked last four, as answers show it).
 */
export const ecpTransactionInput = z.object({
  accountNumber: accountNumberInput.optional(),
  routingNumber: routingNumberInput.optional(),
  accountType: ecpAccountTypeInput.optional(),
  publicAccountNumber: z.string().trim().max(20).optional(),
});
export type EcpTransactionInput = z.output<typeof ecpTransactionInput>;

/** A vaulted shopper's account, `paymentSources.ecpInfo` (the original's schema allows one). */
export const ecpInfoInput = z.object({
  ecp: z.object({
    accountNumber: accountNumberInput,
    routingNumber: routingNumberInput,
    accountType: ecpAccountTypeInput,
  }),
});

/** What answers show of an account: never its numbers, only their last digits behind a mask. */
export interface EcpAccount {
  accountType: EcpAccountType;
  publicAccountNumber: string;
  publicRoutingNumber: string;
}

/**
 * The NACHA return reason codes the sandbox bank answers (docs/ach.md, Returns): a name of ours for each, and
 * its description as the reference's return code list words it. A real bank may answer any other code; it is
 * shown as it came.
 */
const achReturnReasons: Readonly<Record<string, readonly [string, string]>> = {
  R01: ['INSUFFICIENT_FUNDS', 'Insufficient Funds'],
  R02: ['ACCOUNT_CLOSED', 'Account closed'],
  R03: ['NO_ACCOUNT', 'No account/unable to locate account'],
  R04: ['INVALID_ACCOUNT_NUMBER', 'Invalid Account Number'],
  R08: ['PAYMENT_STOPPED', 'Payment stopped or stop payment on item'],
  R10: ['NOT_AUTHORIZED', 'Customer advises not authorized'],
  R16: ['ACCOUNT_FROZEN', 'Account frozen'],
  R20: ['NON_TRANSACTION_ACCOUNT', 'Non-transaction Account'],
  R29: ['CORPORATE_NOT_AUTHORIZED', 'Corporate customer advises not authorized'],
};

/** One entry of the reference's processingInfo.processingErrors (processing-info.xsd's processing-error). */
export interface ProcessingError {
  processingErrorCode: string;
  processingErrorName: string;
  processingErrorDescription: string;
}

/** A failed or returned ACH debit's return, as a processing error whose code is the NACHA return code. */
export function achReturnError(returnCode: string): ProcessingError {
  const [name, description] = achReturnReasons[returnCode] ?? ['ACH_RETURN', `ACH return ${returnCode}`];
  return {
    processingErrorCode: returnCode,
    processingErrorName: name,
    processingErrorDescription: description,
  };
}

/** The masked form answers use: five stars, then the last four digits. */
export const maskedNumber = (lastFour: string) => `*****${lastFour}`;

/** An account as answers show it, from its type, its number's last four digits and its routing number. */
export function publicEcpAccount(
  accountType: EcpAccountType,
  accountLastFour: string,
  routingNumber: string,
): EcpAccount {
  return {
    accountType,
    publicAccountNumber: maskedNumber(accountLastFour),
    publicRoutingNumber: maskedNumber(routingNumber.slice(-4)),
  };
}

/** Checks an ECP request's account: numbers and type together, unless a vaulted shopper's stored one is used. */
export function checkEcpAccount(
  account: EcpTransactionInput,
  vaultedShopper: boolean,
  ctx: z.RefinementCtx,
  path: readonly string[] = ['ecpTransaction'],
): void {
  const sent = ['accountNumber', 'routingNumber', 'accountType'] as const;
  const given = sent.filter((name) => account[name] !== undefined);
  if (given.length === sent.length || (vaultedShopper && given.length === 0)) return;
  for (const name of sent) {
    if (account[name] !== undefined) continue;
    ctx.addIssue({
      code: 'custom',
      path: [...path, name],
      message: vaultedShopper
        ? 'is required with the other account details (leave all three out to debit the stored account)'
        : 'is required unless vaultedShopperId names a shopper with a stored ECP account',
    });
  }
}
