/**
 * The parts of Adyen Checkout API v72's schemas this connector sends and reads, named as the specification names
 * them (/payments, the modifications and /cancels). Hand-written so the connector carries no SDK at run time.
 */

export interface Amount {
  currency: string;
  /** Minor units. */
  value: number;
}

export interface CardDetails {
  /** networkToken: a device account number from a wallet token, its cryptogram in mpiData. */
  type: 'scheme' | 'networkToken';
  number: string;
  expiryMonth: string;
  expiryYear: string;
  cvc?: string;
  holderName?: string;
}

export interface GooglePayDetails {
  type: 'googlepay';
  googlePayToken: string;
}

export interface ApplePayDetails {
  type: 'applepay';
  /** Apple's paymentData, stringified and base64-encoded. */
  applePayToken: string;
}

/** An external MPI's 3-D Secure result (mpiData). */
export interface ThreeDSecureData {
  eci?: string;
  cavv?: string;
  xid?: string;
  dsTransID?: string;
  threeDSVersion?: string;
  /** The ARes transStatus (3-D Secure 2), or whether the card is enrolled (3-D Secure 1). */
  directoryResponse?: 'A' | 'C' | 'D' | 'I' | 'N' | 'R' | 'U' | 'Y';
  /** The challenge's transStatus (3-D Secure 2) or the PARes status (3-D Secure 1). */
  authenticationResponse?: 'Y' | 'N' | 'U' | 'A';
  /** A network token's cryptogram (TAVV). */
  tokenAuthenticationVerificationValue?: string;
}

export interface ShopperName {
  firstName: string;
  lastName: string;
}

export interface PaymentRequest {
  merchantAccount: string;
  reference: string;
  amount: Amount;
  paymentMethod: CardDetails | GooglePayDetails | ApplePayDetails;
  returnUrl: string;
  shopperInteraction: 'Ecommerce';
  captureDelayHours?: number;
  additionalData?: { manualCapture?: 'true' };
  mpiData?: ThreeDSecureData;
  shopperName?: ShopperName;
}

export type ResultCode =
  | 'AuthenticationFinished'
  | 'AuthenticationNotRequired'
  | 'Authorised'
  | 'Cancelled'
  | 'ChallengeShopper'
  | 'Error'
  | 'IdentifyShopper'
  | 'PartiallyAuthorised'
  | 'Pending'
  | 'PresentToShopper'
  | 'Received'
  | 'RedirectShopper'
  | 'Refused'
  | 'Success';

/** The additionalData keys of ResponseAdditionalDataCommon, Card and 3DSecure this connector reads. */
export interface ResponseAdditionalData {
  authCode?: string;
  networkTxReference?: string;
  cvcResult?: string;
  avsResult?: string;
  threeDAuthenticated?: string;
  liabilityShift?: string;
  cardSummary?: string;
  expiryDate?: string;
}

export interface PaymentResponse {
  resultCode?: ResultCode;
  pspReference?: string;
  refusalReason?: string;
  refusalReasonCode?: string;
  additionalData?: ResponseAdditionalData;
}

export interface PaymentCaptureRequest {
  merchantAccount: string;
  amount: Amount;
  reference: string;
}

/** A reversal: Adyen cancels the authorisation, or refunds it whole once captured (CANCEL_OR_REFUND). */
export interface PaymentReversalRequest {
  merchantAccount: string;
  reference: string;
}

export type PaymentRefundRequest = PaymentCaptureRequest;

export interface StandalonePaymentCancelRequest {
  merchantAccount: string;
  /** The reference of the payment to cancel: the one the /payments request carried. */
  paymentReference: string;
  reference: string;
}

/** What every modification and /cancels answers: the outcome follows in a notification. */
export interface ModificationResponse {
  status: 'received';
  pspReference: string;
}

export interface ServiceError {
  status?: number;
  errorCode?: string;
  message?: string;
  errorType?: string;
  pspReference?: string;
}
