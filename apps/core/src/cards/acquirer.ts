import type { CardBrand, CardResponse, ErrorName } from '@paywire/contracts';

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

export interface AuthorizationRequest {
  amountMinor: number;
  currency: string;
  card: CardToCharge;
  cardHolder?: { firstName?: string; lastName?: string; zip?: string };
  /** The merchant's clock, so sandbox expiry follows the sandbox time. */
  now: Date;
}

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
  profile(card: Pick<CardToCharge, 'number' | 'brand'>): CardProfile;
  authorize(request: AuthorizationRequest): Promise<Approval | Decline>;
  capture(networkTransactionId: string, amountMinor: number): Promise<void>;
  reverse(networkTransactionId: string): Promise<void>;
  refund(networkTransactionId: string, amountMinor: number): Promise<void>;
}
