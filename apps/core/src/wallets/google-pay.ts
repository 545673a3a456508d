import type { CardBrand, WalletEnvironment } from '@paywire/contracts';
import { z } from 'zod';
import {
  type CardClass,
  compactContact,
  type DecodedWalletToken,
  invalidToken,
  lastFourDigits,
  optionalText,
  parseWith,
  splitName,
} from './token.ts';

/**
 * Google Pay: the web form is the PaymentData object loadPaymentData resolves with; the mobile form is the
 * object an app builds from it (paymentMethodData with info.cardClass, googleTransactionId, ...). Both carry
 * the card's network and last four in the clear, and the gateway token in tokenizationData.token.
 */

/** The token Google's TEST environment answers for the `example` gateway: a dummy no network can charge. */
export const googleTestEnvironmentToken = 'examplePaymentMethodToken';
/** How Google's TEST environment names the cards of its test card suite ("Test Card: Visa •••• 1111"). */
const testCardDescription = /^Test Card:/i;

const networks: Record<string, CardBrand> = {
  VISA: 'VISA',
  ELECTRON: 'VISA',
  MASTERCARD: 'MASTERCARD',
  MAESTRO: 'MASTERCARD',
  AMEX: 'AMEX',
  DISCOVER: 'DISCOVER',
  JCB: 'JCB',
};

const address = z.object({
  name: optionalText(100),
  address1: optionalText(200),
  address2: optionalText(100),
  address3: optionalText(100),
  locality: optionalText(100),
  administrativeArea: optionalText(50),
  countryCode: z
    .string()
    .regex(/^\s*([A-Za-z]{2})?\s*$/, 'must be a two-letter country code')
    .optional(),
  postalCode: optionalText(20),
});

const paymentData = z.object({
  paymentMethodData: z.object({
    type: z.literal('CARD').optional(),
    description: z.string().max(500).optional(),
    info: z.object({
      cardNetwork: z.string().min(1).max(40),
      cardDetails: lastFourDigits,
      /** The mobile form's card class. */
      cardClass: z.enum(['CREDIT', 'DEBIT', 'PREPAID']).optional(),
      /** The web form's equivalent in newer API versions. */
      cardFundingSource: z.enum(['UNKNOWN', 'CREDIT', 'DEBIT', 'PREPAID']).optional(),
      billingAddress: address.optional(),
    }),
    tokenizationData: z.object({
      type: z.enum(['PAYMENT_GATEWAY', 'DIRECT']),
      token: z.string().min(1),
    }),
  }),
  email: z.string().max(200).optional(),
});

/** A Google-signed payment method token (ECv1, or ECv2 with its intermediate signing key). */
const paymentMethodToken = z.discriminatedUnion('protocolVersion', [
  z.object({
    protocolVersion: z.literal('ECv1'),
    signature: z.string().min(1),
    signedMessage: z.string().min(1),
  }),
  z.object({
    protocolVersion: z.literal('ECv2'),
    signature: z.string().min(1),
    signedMessage: z.string().min(1),
    intermediateSigningKey: z.object({
      signedKey: z.string().min(1),
      signatures: z.array(z.string().min(1)).min(1),
    }),
  }),
]);

const signedMessage = z.object({
  encryptedMessage: z.string().min(1),
  ephemeralPublicKey: z.string().min(1),
  tag: z.string().min(1),
});

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Checks the gateway token is a signed and encrypted Google Pay token; its contents stay sealed. */
function checkSignedToken(token: string): void {
  const tokenPath = 'paymentMethodData.tokenizationData.token';
  const parsed = parseJson(token);
  if (typeof parsed !== 'object' || parsed === null)
    throw invalidToken(`${tokenPath} is not a Google Pay payment method token`);
  const signed = parseWith(paymentMethodToken, parsed, `${tokenPath}.`);
  parseWith(signedMessage, parseJson(signed.signedMessage), `${tokenPath}.signedMessage.`);
}

export function decodeGooglePay(json: unknown): DecodedWalletToken {
  const data = parseWith(paymentData, json);
  const { info, tokenizationData, description } = data.paymentMethodData;
  const brand = networks[info.cardNetwork.toUpperCase()];
  if (!brand) throw invalidToken('paymentMethodData.info.cardNetwork is not a supported card network');

  const placeholder = tokenizationData.token === googleTestEnvironmentToken;
  if (!placeholder) checkSignedToken(tokenizationData.token);
  const environment: WalletEnvironment =
    placeholder || testCardDescription.test(description ?? '') ? 'TEST' : 'PRODUCTION';

  const funding = info.cardClass ?? info.cardFundingSource;
  const billing = info.billingAddress;
  const billingContact =
    billing &&
    compactContact({
      ...splitName(billing.name),
      address1: billing.address1,
      address2: [billing.address2, billing.address3].filter(Boolean).join(', ').slice(0, 200) || undefined,
      city: billing.locality,
      state: billing.administrativeArea,
      zip: billing.postalCode,
      country: billing.countryCode?.trim().toLowerCase() || undefined,
    });
  const email = data.email?.trim();
  return {
    walletType: 'GOOGLE_PAY',
    environment,
    brand,
    lastFour: info.cardDetails,
    ...(funding && funding !== 'UNKNOWN' ? { cardClass: funding as CardClass } : {}),
    ...(billingContact ? { billingContact } : {}),
    ...(email ? { email } : {}),
    paymentData: tokenizationData.token,
  };
}
