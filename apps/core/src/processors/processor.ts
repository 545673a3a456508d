import type {
  AuthenticationResult,
  CardBrand,
  CardResponse,
  ConnectorName,
  ErrorName,
  ThreeDSecureInput,
  WalletEnvironment,
  WalletType,
} from '@paywire/contracts';

export type { ConnectorName };

/**
 * What Paywire needs from a card processor, whatever the connector (processors/sandbox, processors/adyen).
 * Only the payment pipeline (payments/) calls it. Every call carries Paywire's attempt reference, which the
 * processor honours at most once (its idempotency key), so a call repeated after an unknown outcome never
 * moves money twice.
 */

export interface CardToCharge {
  number: string;
  securityCode?: string;
  expirationMonth: string;
  expirationYear: string;
  brand: CardBrand;
}

/**
 * What a verified production wallet token decrypts to: the card number (a device account number for a
 * tokenized card), its expiry, and a tokenized card's cryptogram. Held in memory for the processor call only.
 */
export interface WalletCardData {
  number: string;
  expirationMonth: string;
  expirationYear: string;
  /** The network token's cryptogram (Google CRYPTOGRAM_3DS, Apple onlinePaymentCryptogram). */
  cryptogram?: string;
  eci?: string;
}

/**
 * A wallet payment: the wallet's signed and encrypted payment data and, for a production token, what Paywire
 * decrypted from it with the merchant's keys (wallets/service.ts). A TEST-environment token is a dummy that
 * no card network can charge: a processor answers it from its test rules and moves no money.
 */
export interface WalletToCharge {
  walletType: WalletType;
  environment: WalletEnvironment;
  brand: CardBrand;
  /** The shopper's card as the wallet shows it. */
  lastFour: string;
  /** Google's tokenizationData.token, or Apple's paymentData as JSON. */
  paymentData: string;
  /**
   * A production token Paywire verified and decrypted with the merchant's keys: the card or device account
   * number to charge, its expiry and cryptogram. Absent for a TEST-environment token (a dummy).
   */
  decrypted?: WalletCardData;
}

interface AuthorizationBase {
  /**
   * Paywire's attempt reference: the processor's idempotency key for this authorization (a repeat is answered
   * with the first answer, never charged again) and what an inquiry or a technical cancel names.
   */
  reference: string;
  amountMinor: number;
  /** A sale (AUTH_CAPTURE): the processor captures the whole amount with the authorization. */
  capture?: boolean;
  currency: string;
  cardHolder?: { firstName?: string; lastName?: string; zip?: string };
  /**
   * The shopper's 3-D Secure authentication as the merchant sent it: a reference to one run earlier, or an
   * external MPI's ECI and cryptograms (CAVV, XID), which the processor passes to the card network.
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
  /**
   * The processor's own reference of the authorization (Adyen's pspReference): what captures, cancels and
   * refunds of it name.
   */
  processorReference: string;
  authorizationCode: string;
  networkTransactionId: string;
  cvvResponseCode: string;
  avsResponseCodeZip: string;
  avsResponseCodeAddress: string;
  avsResponseCodeName: string;
  /** Present when the request carried 3-D Secure data: what the processor made of it. */
  threeDSecure?: { authenticationResult: AuthenticationResult };
  /** For a wallet payment: the device account number details the processor found when it opened the token. */
  tokenizedCard?: { dpanLastFour: string; dpanExpirationMonth?: string; dpanExpirationYear?: string };
}

export interface Decline {
  approved: false;
  reason: DeclineReason;
  /** The processor's own reference of the refused attempt, when it gave one. */
  processorReference?: string;
}

/** What the card's issuer range says about it; known without charging it. */
export interface CardProfile {
  cardSubType: CardResponse['cardSubType'];
  cardCategory: string;
  issuingCountry: string;
}

/** The card's issuer range: looked up when a card is vaulted or tokenized, without calling a processor. */
export type CardProfiler = (card: {
  number?: string;
  brand: CardBrand;
  cardClass?: 'CREDIT' | 'DEBIT' | 'PREPAID' | undefined;
}) => CardProfile;

/** A capture, cancel or refund of an authorization, by its processor reference. */
export interface ModificationRequest {
  /** Paywire's attempt reference for this modification: its idempotency key at the processor. */
  reference: string;
  /** Approval.processorReference of the authorization it changes. */
  processorReference: string;
  amountMinor: number;
  currency: string;
}

/**
 * `done`: the processor did it (the sandbox). `received`: it accepted the request and confirms the outcome
 * later through a notification (Adyen), which moves Paywire's record from pending to final and names the
 * modification by `processorReference`, the processor's own reference of it (Adyen's pspReference).
 */
export interface ModificationOutcome {
  status: 'done' | 'received';
  processorReference?: string;
}

/** What an inquiry by reference found: the answer given, `unseen` (never reached it), or `unknown` (cannot tell). */
export type Inquiry = Approval | Decline | 'unseen' | 'unknown';

export interface Processor {
  readonly connector: ConnectorName;
  /**
   * Throws ProcessorUnavailable when there is no answer: `reached` says whether the request may have
   * arrived (a timeout, a 5xx) or certainly did not (connection refused), which decides failover.
   */
  authorize(request: AuthorizationRequest): Promise<Approval | Decline>;
  capture(request: ModificationRequest): Promise<ModificationOutcome>;
  /** Voids an authorization (or a sale not yet settled) whole. */
  cancel(request: ModificationRequest): Promise<ModificationOutcome>;
  refund(request: ModificationRequest): Promise<ModificationOutcome>;
  /**
   * Withdraws every refund of the authorization that the processor received and has not done yet, their
   * total `amountMinor` (docs/conformance.md, Pending refunds). Absent where the processor cannot: a refund
   * it received then stands, and Paywire refuses to cancel it.
   */
  withdrawRefunds?(request: ModificationRequest): Promise<ModificationOutcome>;
  /** What became of the authorization with this reference. */
  inquire(reference: string): Promise<Inquiry>;
  /**
   * What the processor's notifications have told of the authorization with this reference (Adyen's
   * AUTHORISATION item), 'unknown' before one comes. Asked by recovery, which runs once they have had time
   * to come; absent where a processor sends none.
   */
  notifiedOutcome?(reference: string): Promise<Inquiry>;
  /**
   * Cancels whatever the processor did under this attempt reference, known or not (Adyen's technical cancel
   * by merchantReference). It resolves only once the processor has confirmed that nothing of the attempt
   * stands, so a failover after it cannot charge the shopper twice; when that cannot be known it throws
   * ProcessorUnavailable (`reached`).
   */
  technicalCancel(reference: string): Promise<ModificationOutcome>;
}

/** The processor did not answer: `reached` false only when the request cannot have arrived. */
export class ProcessorUnavailable extends Error {
  readonly reached: boolean;
  constructor(message: string, reached: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.reached = reached;
  }
}

/** The processor answered that the request is wrong (a 4xx other than a decline): a fault of ours or its setup. */
export class ProcessorRejected extends Error {
  readonly status: number;
  readonly errorCode: string | undefined;
  constructor(message: string, status: number, errorCode?: string) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
  }
}

/** A request the connector cannot express (a field its processor does not take): refused before sending. */
export class RequestNotSupported extends ProcessorRejected {
  constructor(message: string) {
    super(message, 422);
  }
}

declare module '../context.ts' {
  interface CoreServices {
    /** The card's issuer range, without a processor call. */
    cardProfile: CardProfiler;
  }
}
