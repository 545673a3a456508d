import type {
  AuthenticationResult,
  CardBrand,
  CardResponse,
  ErrorName,
  ThreeDSecureInput,
  WalletEnvironment,
  WalletType,
} from '@paywire/contracts';

/**
 * What Paywire needs from a card processor. The sandbox acquirer implements it in-process; a real
 * acquirer implements the same calls over its network API.
 */
export interface CardToCharge {
  number: string;
  securityCode?: string;
  expirationMonth: string;
  expirationYear: string;
  brand: CardBrand;
}

/**
 * A wallet payment: no card number reaches Paywire, only the wallet's signed and encrypted payment data,
 * which the processor opens (network token and cryptogram). A TEST-environment token is a dummy that no
 * card network can charge: a processor answers it from its test rules and moves no money.
 */
export interface WalletToCharge {
  walletType: WalletType;
  environment: WalletEnvironment;
  brand: CardBrand;
  /** The shopper's card as the wallet shows it. */
  lastFour: string;
  /** Google's tokenizationData.token, or Apple's paymentData as JSON. */
  paymentData: string;
}

interface AuthorizationBase {
  /**
   * Paywire's attempt reference: the acquirer's idempotency key for this authorization (a repeat is answered
   * with the first answer, never charged again) and what an inquiry asks about.
   */
  reference: string;
  amountMinor: number;
  /** A sale (AUTH_CAPTURE): the acquirer captures the whole amount with the authorization. */
  capture?: boolean;
  currency: string;
  cardHolder?: { firstName?: string; lastName?: string; zip?: string };
  /**
   * The shopper's 3-D Secure authentication as the merchant sent it: a reference to one run earlier, or an
   * external MPI's ECI and cryptograms (CAVV, XID), which the acquirer passes to the card network.
   */
  threeDSecure?: ThreeDSecureInput;
  /** The merchant's clock, so sandbox expiry follows the sandbox time. */
  now: Date;
}

/** An authorization charges card data or a wallet token, never both. */
export type AuthorizationRequest = AuthorizationBase &
  ({ card: CardToCharge; wallet?: never } | { wallet: WalletToCharge; card?: never });

export type DeclineReason = Extract<
  ErrorName,
  'DO_NOT_HONOR' | 'INSUFFICIENT_FUNDS' | 'EXPIRED_CARD' | 'CVV_ERROR' | 'CARD_LOST_OR_STOLEN' | 'CALL_ISSUER'
>;

export interface Approval {
  approved: true;
  authorizationCode: string;
  networkTransactionId: string;
  cvvResponseCode: string;
  avsResponseCodeZip: string;
  avsResponseCodeAddress: string;
  avsResponseCodeName: string;
  /** Present when the request carried 3-D Secure data: what the acquirer made of it. */
  threeDSecure?: { authenticationResult: AuthenticationResult };
  /** For a wallet payment: the device account number details the processor found when it opened the token. */
  tokenizedCard?: { dpanLastFour: string; dpanExpirationMonth?: string; dpanExpirationYear?: string };
}

/** What the card's issuer range says about it; known without charging it. */
export interface CardProfile {
  cardSubType: CardResponse['cardSubType'];
  cardCategory: string;
  issuingCountry: string;
}

export interface Decline {
  approved: false;
  reason: DeclineReason;
}

export interface Acquirer {
  /** By the card's number when Paywire has it; a wallet card is known by brand and the wallet's card class. */
  profile(card: {
    number?: string;
    brand: CardBrand;
    cardClass?: 'CREDIT' | 'DEBIT' | 'PREPAID' | undefined;
  }): CardProfile;
  /** Throws when the outcome is unknown (timeout, broken connection): the recovery worker asks later. */
  authorize(request: AuthorizationRequest): Promise<Approval | Decline>;
  /** What became of the authorization with this reference: its answer, or null when the acquirer never saw it. */
  inquire(reference: string): Promise<Approval | Decline | null>;
  /** Each is idempotent by its own attempt reference: a repeat after an unknown outcome does it once. */
  capture(networkTransactionId: string, amountMinor: number, reference: string): Promise<void>;
  reverse(networkTransactionId: string, reference: string): Promise<void>;
  refund(networkTransactionId: string, amountMinor: number, reference: string): Promise<void>;
}

/** The acquirer did not answer in time or the connection broke: whether it acted is unknown. */
export class AcquirerUnavailable extends Error {}
