import { z } from 'zod';
import type { CardBrand } from './cards.ts';
import { text } from './primitives.ts';
import type { BillingContact } from './shoppers.ts';

/** The wallets a card transaction accepts a payment token of (see docs/conformance.md, Wallet tokens). */
export const walletTypes = ['GOOGLE_PAY', 'APPLE_PAY'] as const;
export type WalletType = (typeof walletTypes)[number];

/** Real tokens are a few kilobytes; the bound keeps a hostile body from being decoded at length. */
export const maxEncodedPaymentTokenLength = 65_536;

/**
 * `wallet` of a sale or auth-only request. Only the shape is checked here; core decodes the token, which
 * is payment data (never echoed in an error, see sensitiveProperties) and never stored.
 */
export const walletInput = z.object({
  walletType: z.enum(walletTypes),
  encodedPaymentToken: text(maxEncodedPaymentTokenLength),
});

export type WalletInput = z.output<typeof walletInput>;

/** Where a wallet token comes from: the wallet's test environment (a dummy no network charges) or production. */
export type WalletEnvironment = 'TEST' | 'PRODUCTION';

/**
 * The card a wallet token stands for, as the original gateway answers it under `wallet.tokenizedCard`: the
 * shopper's card (last four, brand, sub-type) and, when known, the device account number (DPAN) the wallet
 * pays with instead of it.
 */
export interface TokenizedCardResponse {
  cardLastFourDigits: string;
  cardType: CardBrand;
  cardSubType: 'CREDIT' | 'DEBIT';
  dpanLastFourDigits?: string;
  dpanExpirationMonth?: string;
  dpanExpirationYear?: string;
}

/** The `wallet` section of a card transaction paid with a wallet token. */
export interface WalletResponse {
  walletType: WalletType;
  billingContactInfo?: BillingContact;
  tokenizedCard: TokenizedCardResponse;
}
