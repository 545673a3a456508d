import type { ThreeDSecureInput } from '@paywire/contracts';
import {
  type AuthorizationRequest,
  type ModificationRequest,
  RequestNotSupported,
  type WalletCardData,
} from '../processor.ts';
import type {
  ApplePayDetails,
  CardDetails,
  GooglePayDetails,
  PaymentCaptureRequest,
  PaymentRefundRequest,
  PaymentRequest,
  PaymentReversalRequest,
  StandalonePaymentCancelRequest,
  ThreeDSecureData,
} from './checkout.ts';

export interface Account {
  merchantAccount: string;
  /** Required by /payments; never followed, since Paywire refuses every redirect (results.ts). */
  returnUrl: string;
}

/** A card's expiry as Adyen takes it: a two-digit month, a four-digit year. */
const expiry = (card: { expirationMonth: string; expirationYear: string }) => ({
  expiryMonth: card.expirationMonth.padStart(2, '0'),
  expiryYear: card.expirationYear,
});

function paymentMethod(request: AuthorizationRequest): PaymentRequest['paymentMethod'] {
  const { card, wallet } = request;
  if (card) {
    const holder = [request.cardHolder?.firstName, request.cardHolder?.lastName].filter(Boolean).join(' ');
    const details: CardDetails = { type: 'scheme', number: card.number, ...expiry(card) };
    if (card.securityCode) details.cvc = card.securityCode;
    if (holder) details.holderName = holder;
    return details;
  }
  if (wallet.decrypted) return decryptedWallet(wallet.decrypted);
  if (wallet.walletType === 'GOOGLE_PAY')
    return { type: 'googlepay', googlePayToken: wallet.paymentData } satisfies GooglePayDetails;
  return {
    type: 'applepay',
    applePayToken: Buffer.from(wallet.paymentData, 'utf8').toString('base64'),
  } satisfies ApplePayDetails;
}

/**
 * A production wallet token Paywire decrypted itself: the card inside it, not the sealed token (which only
 * the key holder, Paywire, can open). A tokenized card (a device account number with its cryptogram) is a
 * network token; a card without a cryptogram (Google Pay's PAN_ONLY) is charged as a plain card number.
 */
function decryptedWallet(card: WalletCardData): CardDetails {
  return { type: card.cryptogram ? 'networkToken' : 'scheme', number: card.number, ...expiry(card) };
}

/** A network token's cryptogram (TAVV) and ECI, as Adyen takes them for a token Paywire decrypted. */
function networkTokenData(card: WalletCardData | undefined): ThreeDSecureData | undefined {
  if (!card?.cryptogram) return undefined;
  return { tokenAuthenticationVerificationValue: card.cryptogram, ...(card.eci ? { eci: card.eci } : {}) };
}

/** The 3-D Secure status an ECI stands for: 05/02 authenticated, 06/01 attempted, 07/00 not authenticated. */
function transStatus(eci: string): 'Y' | 'A' | 'N' {
  if (eci === '05' || eci === '02') return 'Y';
  if (eci === '06' || eci === '01') return 'A';
  return 'N';
}

/**
 * An external MPI's result as mpiData. Paywire is not told whether a challenge took place, so a 3-D Secure 2
 * result is sent as the frictionless flow's (the ECI's status as directoryResponse); a 3-D Secure 1 result as an
 * enrolled card (directoryResponse Y) with the ECI's status as authenticationResponse.
 */
export function mpiData(secure: ThreeDSecureInput): ThreeDSecureData {
  // A request this account cannot take, refused before it is sent: the pipeline tries the next account.
  if (secure.eci === undefined || secure.cavv === undefined)
    throw new RequestNotSupported(
      'adyen: only an external MPI result (eci and cavv) can be sent; a 3-D Secure reference or result token cannot',
    );
  const status = transStatus(secure.eci);
  const version1 =
    secure.threeDSecureVersion?.startsWith('1.') ?? (secure.xid !== undefined && !secure.dsTransactionId);
  const data: ThreeDSecureData = { eci: secure.eci, cavv: secure.cavv };
  if (secure.xid) data.xid = secure.xid;
  if (secure.dsTransactionId) data.dsTransID = secure.dsTransactionId;
  if (secure.threeDSecureVersion) data.threeDSVersion = secure.threeDSecureVersion;
  return version1
    ? { ...data, directoryResponse: 'Y', authenticationResponse: status }
    : { ...data, directoryResponse: status };
}

/**
 * The /payments body of an authorization. A sale is captured at once (captureDelayHours 0); an auth-only asks
 * for manual capture explicitly (additionalData.manualCapture), so the account's default capture delay never
 * captures what the merchant meant only to authorize.
 */
export function paymentRequest(request: AuthorizationRequest, account: Account): PaymentRequest {
  const body: PaymentRequest = {
    merchantAccount: account.merchantAccount,
    reference: request.reference,
    amount: { currency: request.currency, value: request.amountMinor },
    paymentMethod: paymentMethod(request),
    returnUrl: account.returnUrl,
    shopperInteraction: 'Ecommerce',
    ...(request.capture ? { captureDelayHours: 0 } : { additionalData: { manualCapture: 'true' } }),
  };
  const { firstName, lastName } = request.cardHolder ?? {};
  // ShopperName needs both names; one alone still reaches Adyen as the card's holderName.
  if (firstName && lastName) body.shopperName = { firstName, lastName };
  const authentication = request.threeDSecure
    ? mpiData(request.threeDSecure)
    : networkTokenData(request.wallet?.decrypted);
  if (authentication) body.mpiData = authentication;
  return body;
}

export function captureRequest(request: ModificationRequest, merchantAccount: string): PaymentCaptureRequest {
  return {
    merchantAccount,
    amount: { currency: request.currency, value: request.amountMinor },
    reference: request.reference,
  };
}

export function reversalRequest(
  request: ModificationRequest,
  merchantAccount: string,
): PaymentReversalRequest {
  return { merchantAccount, reference: request.reference };
}

export function refundRequest(request: ModificationRequest, merchantAccount: string): PaymentRefundRequest {
  return captureRequest(request, merchantAccount);
}

/**
 * A technical cancel's own reference and idempotency key: Adyen keeps idempotency keys per company account across
 * endpoints, so the authorization's reference as key would be taken for a repeat of its /payments request.
 */
export function technicalCancelReference(reference: string): string {
  return `${reference}-technical-cancel`;
}

export function technicalCancelRequest(
  reference: string,
  merchantAccount: string,
): StandalonePaymentCancelRequest {
  return { merchantAccount, paymentReference: reference, reference: technicalCancelReference(reference) };
}
