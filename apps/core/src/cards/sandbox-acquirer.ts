import { randomInt } from 'node:crypto';
import {
  type AuthenticationResult,
  isExpired,
  minorToDecimal,
  type ThreeDSecureInput,
} from '@paywire/contracts';
import type { Acquirer, Approval, AuthorizationRequest, Decline, DeclineReason } from './acquirer.ts';

/** The sandbox test cards of decisions.md: these decline; every other Luhn-valid card approves. */
const decliningCards = new Map<string, DeclineReason>([
  ['4917484589897107', 'DO_NOT_HONOR'],
  ['378282246310005', 'DO_NOT_HONOR'],
  ['6011000991300009', 'DO_NOT_HONOR'],
  ['3530111333300000', 'DO_NOT_HONOR'],
]);

const debitCards = new Set(['4007702835532454']);

function digits(count: number): string {
  return Array.from({ length: count }, () => randomInt(10)).join('');
}

/**
 * The sandbox's rules. A wallet payment has no card number, expiry or security code in the clear (they are
 * inside the wallet's encrypted payment data, which the sandbox does not open), so of these only the amount
 * rule applies to it, to test and production tokens alike; nothing is charged either way.
 */
function declineReason(request: AuthorizationRequest): DeclineReason | undefined {
  const { card } = request;
  const listed = card && decliningCards.get(card.number);
  if (listed) return listed;
  if (card && isExpired(Number(card.expirationMonth), Number(card.expirationYear), request.now))
    return 'EXPIRED_CARD';
  if (minorToDecimal(request.amountMinor, request.currency).endsWith('.51')) return 'INSUFFICIENT_FUNDS';
  if (card?.securityCode === '000') return 'CVV_ERROR';
  return undefined;
}

const masterCardEci = new Set(['00', '01', '02']);

/**
 * The sandbox's 3-D Secure rules (README, Sandbox cards). An external MPI's ECI says what happened: 05/02
 * authenticated, 06/01 attempted (the issuer did not take part), 07/00 not authenticated; an ECI of the
 * other brand family is unusable. A reference id or result token of the service's own authentication
 * ending in 9 failed, ending in 8 was unavailable, anything else succeeded.
 */
export function sandboxAuthentication(
  secure: ThreeDSecureInput,
  brand: string | undefined,
): AuthenticationResult {
  if (secure.eci !== undefined) {
    if (brand !== undefined && masterCardEci.has(secure.eci) !== (brand === 'MASTERCARD'))
      return 'AUTHENTICATION_UNAVAILABLE';
    if (secure.eci === '05' || secure.eci === '02') return 'AUTHENTICATION_SUCCEEDED';
    if (secure.eci === '06' || secure.eci === '01') return 'AUTHENTICATION_BYPASSED';
    return 'AUTHENTICATION_FAILED';
  }
  const reference = secure.threeDSecureReferenceId ?? secure.threeDSecureResultToken ?? '';
  if (reference.endsWith('9')) return 'AUTHENTICATION_FAILED';
  if (reference.endsWith('8')) return 'AUTHENTICATION_UNAVAILABLE';
  return 'AUTHENTICATION_SUCCEEDED';
}

export const sandboxAcquirer: Acquirer = {
  async authorize(request): Promise<Approval | Decline> {
    const reason = declineReason(request);
    if (reason) return { approved: false, reason };
    const holder = request.cardHolder;
    return {
      approved: true,
      authorizationCode: digits(6),
      networkTransactionId: digits(15),
      cvvResponseCode: request.card?.securityCode ? 'MA' : 'NC',
      avsResponseCodeZip: holder?.zip ? 'M' : 'U',
      avsResponseCodeAddress: 'U',
      avsResponseCodeName: holder?.firstName || holder?.lastName ? 'M' : 'U',
      ...(request.threeDSecure
        ? {
            threeDSecure: {
              authenticationResult: sandboxAuthentication(
                request.threeDSecure,
                request.card?.brand ?? request.wallet?.brand,
              ),
            },
          }
        : {}),
    };
  },
  profile(card) {
    const debit = card.cardClass ? card.cardClass !== 'CREDIT' : debitCards.has(card.number ?? '');
    return {
      cardSubType: debit ? 'DEBIT' : 'CREDIT',
      cardCategory: card.cardClass === 'PREPAID' ? 'PREPAID' : card.brand === 'AMEX' ? 'PLATINUM' : 'CLASSIC',
      issuingCountry: 'us',
    };
  },
  async capture() {},
  async reverse() {},
  async refund() {},
};
