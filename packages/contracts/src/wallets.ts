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

/** A private key as PKCS #8: PEM, or its DER in base-64. Never echoed. */
const privateKeyText = z.string().trim().min(1).max(8192);

/**
 * A merchant's wallet decryption keys (admin callers, `wallets.configureKeys`): what production tokens are
 * verified for and opened with. Each key list holds the current key and, while rotating, the previous one.
 * A wallet left out keeps its stored keys; `null` removes them.
 */
export const configureWalletKeysInput = z.object({
  merchantId: z.number().int().positive().max(999_999_999),
  googlePay: z
    .object({
      /** What Google signs the message for: `gateway:<gatewayId>` or `merchant:<merchantId>`. */
      recipientId: z
        .string()
        .trim()
        .regex(/^(gateway|merchant):\S{1,200}$/, 'must be gateway:<id> or merchant:<id>'),
      /** When set, a decrypted message must name this gateway merchant id. */
      gatewayMerchantId: z.string().trim().min(1).max(200).optional(),
      privateKeys: z.array(privateKeyText).min(1).max(4),
    })
    .nullable()
    .optional(),
  applePay: z
    .object({
      /** The Apple merchant identifier the payment processing certificate belongs to. */
      merchantIdentifier: z.string().trim().min(1).max(200),
      privateKeys: z.array(privateKeyText).min(1).max(4),
    })
    .nullable()
    .optional(),
});

export type ConfigureWalletKeysInput = z.output<typeof configureWalletKeysInput>;

/** What is configured, without a key: the recipient and identifiers, and how many keys each wallet has. */
export interface WalletKeysView {
  merchantId: number;
  googlePay: { recipientId: string; gatewayMerchantId: string | null; keys: number } | null;
  applePay: { merchantIdentifier: string; keys: number } | null;
}
