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
import type { Mode } from '../context.ts';
import { inOrder } from '../db/json-order.ts';
import type { CardProfiler } from '../processors/processor.ts';
import { decodeWalletToken } from './decode.ts';
import { type DecodedWalletToken, tokenProperty } from './token.ts';

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

/**
 * Decodes a wallet token and applies the environment rule: the sandbox takes tokens of the wallets' test
 * and production environments alike; live mode only production ones, since a test token is a dummy that
 * cannot be charged (see docs/conformance.md, Wallet tokens).
 */
export function resolveWalletToken(mode: Mode, wallet: WalletInput): DecodedWalletToken {
  const decoded = decodeWalletToken(wallet);
  if (mode === 'live' && decoded.environment === 'TEST') {
    throw new DomainError(
      'INVALID_PAYMENT_DETAILS',
      `the ${wallet.walletType} token comes from the wallet's test environment and cannot be charged in live mode`,
      { name: tokenProperty },
    );
  }
  return decoded;
}

/** The card record of a wallet payment: the token's card details and what the processor says of its range. */
export function walletCard(
  cardProfile: CardProfiler,
  token: DecodedWalletToken,
  tokenizedCard?: { dpanLastFour?: string; dpanExpirationMonth?: string; dpanExpirationYear?: string },
): WalletCard {
  const profile = cardProfile({ brand: token.brand, cardClass: token.cardClass });
  const dpanLastFour = token.dpanLastFour ?? tokenizedCard?.dpanLastFour;
  return {
    walletType: token.walletType,
    environment: token.environment,
    brand: token.brand,
    lastFour: token.lastFour,
    cardSubType: profile.cardSubType,
    cardCategory: profile.cardCategory,
    ...(dpanLastFour ? { dpanLastFour } : {}),
    ...(tokenizedCard?.dpanExpirationMonth && tokenizedCard.dpanExpirationYear
      ? {
          dpanExpirationMonth: tokenizedCard.dpanExpirationMonth,
          dpanExpirationYear: tokenizedCard.dpanExpirationYear,
        }
      : {}),
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
