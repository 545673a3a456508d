import { randomInt } from 'node:crypto';
import { isExpired, minorToDecimal } from '@paywire/contracts';
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
