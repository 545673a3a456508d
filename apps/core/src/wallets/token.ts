import {
  type BillingContact,
  type CardBrand,
  DomainError,
  type WalletEnvironment,
  type WalletType,
} from '@paywire/contracts';
import { z } from 'zod';
import type { WalletCardData } from '../processors/processor.ts';

/** The property every token problem is reported on. Its value is payment data and is never echoed. */
export const tokenProperty = 'wallet.encodedPaymentToken';

export function invalidToken(problem: string): DomainError {
  return new DomainError('VALIDATION_GENERAL_FAILURE', `${tokenProperty}: ${problem}`, {
    name: tokenProperty,
  });
}

/**
 * A production token that fails verification or decryption; the reason names the failed step, never a value
 * of the token. wallets/service.ts answers it as 400 INVALID_PAYMENT_DETAILS.
 */
export class WalletTokenRejected extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'WalletTokenRejected';
  }
}

export type CardClass = 'CREDIT' | 'DEBIT' | 'PREPAID';

/** What a wallet token says about the card it pays with, in the clear: all Paywire keeps of it. */
export interface WalletCardDetails {
  walletType: WalletType;
  environment: WalletEnvironment;
  brand: CardBrand;
  /** Last four digits of the shopper's card, as the wallet shows it. */
  lastFour: string;
  cardClass?: CardClass;
  /** Last four digits of the device account number (DPAN), when the wallet tells it. */
  dpanLastFour?: string;
  billingContact?: BillingContact;
  email?: string;
}

/** A decoded token: the card details, and the encrypted payment data. */
export interface DecodedWalletToken extends WalletCardDetails {
  /** The wallet's signed and encrypted payload (network token and cryptogram); sent to the acquirer, never kept. */
  paymentData: string;
  /** A production token, verified and decrypted with the merchant's keys (wallets/service.ts). */
  decrypted?: WalletCardData;
  dpanExpirationMonth?: string;
  dpanExpirationYear?: string;
}

/** Trimmed text, with the empty strings wallets send for absent address lines turned into absence. */
export const optionalText = (max: number) =>
  z
    .string()
    .max(max)
    .optional()
    .transform((value) => value?.trim() || undefined);

export const lastFourDigits = z.string().regex(/^\d{4}$/, 'must be the last four digits');

/** A zod issue as a description that names the field inside the token, never its value. */
export function describeIssue(issues: readonly z.core.$ZodIssue[], prefix = ''): string {
  const [issue] = issues;
  if (!issue) return 'is not a wallet token';
  const path = `${prefix}${issue.path.map(String).join('.')}`;
  const problem =
    issue.code === 'invalid_type' && issue.input === undefined
      ? 'is required'
      : issue.code === 'invalid_type'
        ? `must be ${issue.expected === 'object' ? 'an object' : `a ${issue.expected}`}`
        : issue.code === 'invalid_value'
          ? `must be one of ${issue.values.map(String).join(', ')}`
          : issue.message.replace(/^Invalid input: /, '');
  return path ? `${path} ${problem}` : `the token ${problem}`;
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidToken(describeIssue(result.error.issues, prefix));
  return result.data;
}

/** "Ada Lovelace" -> first name "Ada", last name "Lovelace"; a single word is the last name. */
export function splitName(name: string | undefined): Pick<BillingContact, 'firstName' | 'lastName'> {
  const words = name?.trim().split(/\s+/).filter(Boolean) ?? [];
  const lastName = words.pop();
  return {
    ...(words.length > 0 ? { firstName: words.join(' ') } : {}),
    ...(lastName ? { lastName } : {}),
  };
}

/** Drops absent fields, and the contact itself when nothing is left. */
export function compactContact(contact: BillingContact): BillingContact | undefined {
  const entries = Object.entries(contact).filter(([, value]) => value !== undefined && value !== '');
  return entries.length > 0 ? (Object.fromEntries(entries) as BillingContact) : undefined;
}
