import type { AuthenticationResult } from '@paywire/contracts';
import {
  type Approval,
  type AuthorizationRequest,
  type Decline,
  type DeclineReason,
  ProcessorUnavailable,
} from '../processor.ts';
import type { PaymentResponse, ResponseAdditionalData } from './checkout.ts';
import type { NotificationRequestItem } from './hmac.ts';

/**
 * Adyen's refusalReasonCodes that have a Paywire counterpart (docs/adyen-mapping.md lists them all); every other
 * refusal is DO_NOT_HONOR.
 */
const declineReasons: Readonly<Record<string, DeclineReason>> = {
  '3': 'CALL_ISSUER', // Referral
  '5': 'CARD_LOST_OR_STOLEN', // Blocked Card
  '6': 'EXPIRED_CARD', // Expired Card
  '12': 'INSUFFICIENT_FUNDS', // Not enough balance
  '24': 'CVV_ERROR', // CVC Declined
};

export function declineReason(refusalReasonCode: string | undefined): DeclineReason {
  return declineReasons[refusalReasonCode ?? ''] ?? 'DO_NOT_HONOR';
}

/** The number a result such as "1 Matches" or "7 Both postal code and address match" starts with. */
function leadingCode(result: string | undefined): number | undefined {
  const match = /^\s*(\d+)/.exec(result ?? '');
  return match ? Number(match[1]) : undefined;
}

/** additionalData.cvcResult to Paywire's cvvResponseCode. */
const cvvCodes: readonly string[] = [
  'NR', // 0 Unknown: the issuer gave no answer
  'MA', // 1 Matches
  'NM', // 2 Does not match
  'NC', // 3 Not checked
  'ND', // 4 No CVC/CID provided, but was required
  'U', // 5 Issuer not certified for CVC
  'ND', // 6 No CVC/CID provided
];

export function cvvResponseCode(cvcResult: string | undefined): string {
  return cvvCodes[leadingCode(cvcResult) ?? 0] ?? 'NR';
}

/** Zip (postal code), address and name results, M match, N no match, U unknown or not checked. */
type AvsCodes = readonly [zip: 'M' | 'N' | 'U', address: 'M' | 'N' | 'U', name: 'M' | 'N' | 'U'];

/** additionalData.avsResult's codes 0 to 26, in order. */
const avsCodes: readonly AvsCodes[] = [
  ['U', 'U', 'U'], // 0 Unknown
  ['N', 'M', 'U'], // 1 Address matches, postal code doesn't
  ['N', 'N', 'U'], // 2 Neither postal code nor address match
  ['U', 'U', 'U'], // 3 AVS unavailable
  ['U', 'U', 'U'], // 4 AVS not supported for this card type
  ['U', 'U', 'U'], // 5 No AVS data provided
  ['M', 'N', 'U'], // 6 Postal code matches, address doesn't
  ['M', 'M', 'U'], // 7 Both postal code and address match
  ['U', 'U', 'U'], // 8 Address not checked, postal code unknown
  ['U', 'M', 'U'], // 9 Address matches, postal code unknown
  ['U', 'N', 'U'], // 10 Address doesn't match, postal code unknown
  ['U', 'U', 'U'], // 11 Postal code not checked, address unknown
  ['U', 'M', 'U'], // 12 Address matches, postal code not checked
  ['U', 'N', 'U'], // 13 Address doesn't match, postal code not checked
  ['M', 'U', 'U'], // 14 Postal code matches, address unknown
  ['M', 'U', 'U'], // 15 Postal code matches, address not checked
  ['N', 'U', 'U'], // 16 Postal code doesn't match, address unknown
  ['N', 'U', 'U'], // 17 Postal code doesn't match, address not checked
  ['U', 'U', 'U'], // 18 Neither postal code nor address were checked
  ['M', 'U', 'M'], // 19 Name and postal code match
  ['M', 'M', 'M'], // 20 Name, address and postal code match
  ['U', 'M', 'M'], // 21 Name and address match
  ['U', 'U', 'M'], // 22 Name matches
  ['M', 'U', 'N'], // 23 Postal code matches, name doesn't
  ['M', 'M', 'N'], // 24 Postal code and address match, name doesn't
  ['U', 'M', 'N'], // 25 Address matches, name doesn't
  ['N', 'N', 'N'], // 26 Neither postal code, address nor name match
];

export function avsResponseCodes(avsResult: string | undefined): {
  avsResponseCodeZip: string;
  avsResponseCodeAddress: string;
  avsResponseCodeName: string;
} {
  const [zip, address, name] = avsCodes[leadingCode(avsResult) ?? 0] ?? ['U', 'U', 'U'];
  return { avsResponseCodeZip: zip, avsResponseCodeAddress: address, avsResponseCodeName: name };
}

/** What Adyen made of the MPI data it was sent. */
export function authenticationResult(data: ResponseAdditionalData): AuthenticationResult {
  if (data.threeDAuthenticated === 'true') return 'AUTHENTICATION_SUCCEEDED';
  // Attempted: the issuer took no part, yet the liability shifted.
  if (data.liabilityShift === 'true') return 'AUTHENTICATION_BYPASSED';
  if (data.threeDAuthenticated === 'false') return 'AUTHENTICATION_FAILED';
  return 'AUTHENTICATION_UNAVAILABLE';
}

/** additionalData.expiryDate is "M/YYYY". */
function tokenizedCard(data: ResponseAdditionalData): Approval['tokenizedCard'] {
  if (!data.cardSummary) return undefined;
  const [month, year] = data.expiryDate?.split('/') ?? [];
  return {
    dpanLastFour: data.cardSummary,
    ...(month && year ? { dpanExpirationMonth: month.padStart(2, '0'), dpanExpirationYear: year } : {}),
  };
}

/** An approval's codes from additionalData, whether an answer's or a notification's. */
function approvalCodes(pspReference: string, data: ResponseAdditionalData): Approval {
  return {
    approved: true,
    processorReference: pspReference,
    authorizationCode: data.authCode ?? '',
    networkTransactionId: data.networkTxReference ?? pspReference,
    cvvResponseCode: cvvResponseCode(data.cvcResult),
    ...avsResponseCodes(data.avsResult),
  };
}

function approval(response: PaymentResponse, pspReference: string, request: AuthorizationRequest): Approval {
  const data = response.additionalData ?? {};
  const card = request.wallet ? tokenizedCard(data) : undefined;
  return {
    ...approvalCodes(pspReference, data),
    ...(request.threeDSecure ? { threeDSecure: { authenticationResult: authenticationResult(data) } } : {}),
    ...(card ? { tokenizedCard: card } : {}),
  };
}

/**
 * A /payments answer as Paywire's. Authorised approves; Refused and Cancelled decline by refusalReasonCode.
 * RedirectShopper, IdentifyShopper and ChallengeShopper ask for Adyen's own 3-D Secure flow, which Paywire does
 * not run: the payment stays unauthorised at Adyen, so it is a decline (DO_NOT_HONOR, as Adyen's own
 * "Authentication required" refusal). Error is Adyen's final answer that processing failed (an acquirer or issuer
 * fault, not the issuer's refusal): no answer on the card, so ProcessorUnavailable, reached. Any other result
 * (Pending, Received, PartiallyAuthorised, ...) is not final or not one this request can get: the outcome is
 * unknown, and the pipeline cancels the attempt.
 */
export function authorizationOutcome(
  response: PaymentResponse,
  request: AuthorizationRequest,
): Approval | Decline {
  const { resultCode, pspReference } = response;
  const referenced = pspReference ? { processorReference: pspReference } : {};
  switch (resultCode) {
    case 'Authorised':
      if (!pspReference) break;
      return approval(response, pspReference, request);
    case 'Refused':
    case 'Cancelled':
      return { approved: false, reason: declineReason(response.refusalReasonCode), ...referenced };
    case 'RedirectShopper':
    case 'IdentifyShopper':
    case 'ChallengeShopper':
      return { approved: false, reason: 'DO_NOT_HONOR', ...referenced };
    case 'Error':
      throw new ProcessorUnavailable(
        `adyen: payment ended in Error (refusalReasonCode ${response.refusalReasonCode ?? 'none'})`,
        true,
      );
  }
  throw new ProcessorUnavailable(`adyen: payment answered with resultCode ${resultCode ?? 'none'}`, true);
}

/**
 * What an AUTHORISATION notification says the attempt did: its approval, with what the item carries (the
 * authorization code and, where Adyen sends them, the network reference and the card checks), or its refusal.
 */
export function notifiedAuthorisation(item: NotificationRequestItem): Approval | Decline {
  const data = item.additionalData ?? {};
  const pspReference = item.pspReference ?? '';
  if (item.success !== 'true')
    return {
      approved: false,
      reason: declineReason(data.refusalReasonCode),
      processorReference: pspReference,
    };
  // a notification's additionalData carries the same keys as an answer's, as strings
  return approvalCodes(pspReference, data as ResponseAdditionalData);
}
