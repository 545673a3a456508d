import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type BillingContact,
  billingContactFields,
  type CardBrand,
  type CardResponse,
  DomainError,
  type ShopperFields,
  type WalletEnvironment,
  type WalletInput,
  type WalletResponse,
  type WalletType,
} from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { inOrder } from '../db/json-order.ts';
import type { CardProfiler } from '../processors/processor.ts';
import { type ApplePaymentData, decryptApplePaymentData, verifyAppleSignature } from './apple-pay-crypto.ts';
import { decodeWalletToken } from './decode.ts';
import { openGooglePayToken } from './google-pay-crypto.ts';
import { merchantWalletKeys } from './keys.ts';
import { type DecodedWalletToken, tokenProperty, WalletTokenRejected } from './token.ts';

/**
 * What Paywire keeps of a wallet payment, on its transaction: enough to answer and report it, never the
 * token. A wallet token is a single-use cryptogram, so the card it stands for is not vaulted as a card to
 * charge again.
 */
export interface WalletCard {
  walletType: WalletType;
  environment: WalletEnvironment;
  brand: CardBrand;
  lastFour: string;
  cardSubType: CardResponse['cardSubType'];
  cardCategory: string;
  dpanLastFour?: string;
  dpanExpirationMonth?: string;
  dpanExpirationYear?: string;
  billingContact?: BillingContact;
}

/** A production token that is not what it claims, or not for this merchant: 400 20012, nothing written. */
function unusable(walletType: WalletType, reason: string): DomainError {
  return new DomainError('INVALID_PAYMENT_DETAILS', `the ${walletType} token cannot be used: ${reason}`, {
    name: tokenProperty,
  });
}

/** Opens a production token with the merchant's keys after checking its signatures; throws WalletTokenRejected. */
async function openProductionToken(
  ctx: MerchantContext,
  em: EntityManager,
  token: DecodedWalletToken,
  now: Date,
): Promise<DecodedWalletToken> {
  const keys = await merchantWalletKeys(em, ctx.vault, ctx.merchantId);
  if (token.walletType === 'GOOGLE_PAY') {
    if (!keys.googlePay) throw new WalletTokenRejected('the merchant has no Google Pay keys configured');
    const opened = openGooglePayToken(token.paymentData, ctx.walletTrust.googleRootKeys, keys.googlePay, now);
    const expected = keys.googlePay.gatewayMerchantId;
    if (expected !== undefined && opened.gatewayMerchantId !== expected)
      throw new WalletTokenRejected('the token is for another gateway merchant id');
    const { details } = opened;
    const tokenized = details.authMethod === 'CRYPTOGRAM_3DS';
    return {
      ...token,
      // The clear card details are not signed: a PAN_ONLY token's last four are the decrypted number's.
      ...(tokenized ? { dpanLastFour: details.pan.slice(-4) } : { lastFour: details.pan.slice(-4) }),
      ...(tokenized
        ? { dpanExpirationMonth: details.expirationMonth, dpanExpirationYear: details.expirationYear }
        : {}),
      decrypted: {
        number: details.pan,
        expirationMonth: details.expirationMonth,
        expirationYear: details.expirationYear,
        ...(details.cryptogram ? { cryptogram: details.cryptogram } : {}),
        ...(details.eciIndicator ? { eci: details.eciIndicator } : {}),
      },
    };
  }
  if (!keys.applePay) throw new WalletTokenRejected('the merchant has no Apple Pay keys configured');
  const paymentData = JSON.parse(token.paymentData) as ApplePaymentData;
  verifyAppleSignature(paymentData, ctx.walletTrust.appleRootCertificates, now);
  const opened = decryptApplePaymentData(paymentData, keys.applePay);
  const expiry = opened.applicationExpirationDate;
  const month = expiry.slice(2, 4);
  const year = `20${expiry.slice(0, 2)}`;
  return {
    ...token,
    dpanLastFour: opened.applicationPrimaryAccountNumber.slice(-4),
    dpanExpirationMonth: month,
    dpanExpirationYear: year,
    decrypted: {
      number: opened.applicationPrimaryAccountNumber,
      expirationMonth: month,
      expirationYear: year,
      ...(opened.cryptogram ? { cryptogram: opened.cryptogram } : {}),
      ...(opened.eciIndicator ? { eci: opened.eciIndicator } : {}),
    },
  };
}

/**
 * Decodes a wallet token and applies the environment rule: the sandbox takes tokens of the wallets' test
 * and production environments alike; live mode only production ones, since a test token is a dummy that
 * cannot be charged (see docs/conformance.md, Wallet tokens). A test token stays that dummy; a production token is
 * verified (signatures against the configured roots, expiry) and decrypted with the merchant's keys, in
 * either mode, so what is charged is the card inside it.
 */
export async function resolveWalletToken(
  ctx: MerchantContext,
  em: EntityManager,
  wallet: WalletInput,
  now: Date,
): Promise<DecodedWalletToken> {
  const decoded = decodeWalletToken(wallet);
  if (decoded.environment === 'TEST') {
    if (ctx.mode === 'live') {
      throw new DomainError(
        'INVALID_PAYMENT_DETAILS',
        `the ${wallet.walletType} token comes from the wallet's test environment and cannot be charged in live mode`,
        { name: tokenProperty },
      );
    }
    return decoded;
  }
  try {
    return await openProductionToken(ctx, em, decoded, now);
  } catch (error) {
    if (error instanceof WalletTokenRejected) throw unusable(wallet.walletType, error.message);
    throw error;
  }
}

/** The card record of a wallet payment: the token's card details and what the processor says of its range. */
export function walletCard(
  cardProfile: CardProfiler,
  token: DecodedWalletToken,
  tokenizedCard?: { dpanLastFour?: string; dpanExpirationMonth?: string; dpanExpirationYear?: string },
): WalletCard {
  const profile = cardProfile({ brand: token.brand, cardClass: token.cardClass });
  const dpanLastFour = token.dpanLastFour ?? tokenizedCard?.dpanLastFour;
  const dpanExpirationMonth = token.dpanExpirationMonth ?? tokenizedCard?.dpanExpirationMonth;
  const dpanExpirationYear = token.dpanExpirationYear ?? tokenizedCard?.dpanExpirationYear;
  return {
    walletType: token.walletType,
    environment: token.environment,
    brand: token.brand,
    lastFour: token.lastFour,
    cardSubType: profile.cardSubType,
    cardCategory: profile.cardCategory,
    ...(dpanLastFour ? { dpanLastFour } : {}),
    ...(dpanExpirationMonth && dpanExpirationYear ? { dpanExpirationMonth, dpanExpirationYear } : {}),
    ...(token.billingContact ? { billingContact: token.billingContact } : {}),
  };
}

/** The `creditCard` section of a wallet payment: the shopper's card as the wallet shows it, no expiry. */
export function walletCreditCard(card: WalletCard) {
  return {
    cardLastFourDigits: card.lastFour,
    cardType: card.brand,
    cardSubType: card.cardSubType,
    cardCategory: card.cardCategory,
  };
}

/** The `wallet` section of a transaction, in the original gateway's shape. */
export function walletResponse(card: WalletCard): WalletResponse {
  const contact = card.billingContact;
  return {
    walletType: card.walletType,
    // jsonb keeps keys in its own order; XML clients expect the documented one on every read.
    ...(contact
      ? {
          billingContactInfo: inOrder(contact, billingContactFields),
        }
      : {}),
    tokenizedCard: {
      cardLastFourDigits: card.lastFour,
      cardType: card.brand,
      cardSubType: card.cardSubType,
      ...(card.dpanLastFour ? { dpanLastFourDigits: card.dpanLastFour } : {}),
      ...(card.dpanExpirationMonth ? { dpanExpirationMonth: card.dpanExpirationMonth } : {}),
      ...(card.dpanExpirationYear ? { dpanExpirationYear: card.dpanExpirationYear } : {}),
    },
  };
}

/** A wallet payment's holder, when the request names none: the wallet's billing contact. */
export function walletCardHolder(token: DecodedWalletToken) {
  const contact = token.billingContact;
  const holder = {
    ...(contact?.firstName ? { firstName: contact.firstName } : {}),
    ...(contact?.lastName ? { lastName: contact.lastName } : {}),
    ...(contact?.zip ? { zip: contact.zip } : {}),
    ...(token.email ? { email: token.email } : {}),
    ...(contact?.country ? { country: contact.country } : {}),
  };
  return Object.keys(holder).length > 0 ? holder : undefined;
}

/** A first-time wallet payer's shopper record: the wallet's billing contact and email. */
export function walletShopperFields(token: DecodedWalletToken): Partial<ShopperFields> {
  const contact = token.billingContact ?? {};
  const fields: Partial<ShopperFields> = {
    firstName: contact.firstName,
    lastName: contact.lastName,
    email: token.email,
    address: contact.address1,
    address2: contact.address2,
    city: contact.city,
    state: contact.state,
    zip: contact.zip,
    country: contact.country,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
