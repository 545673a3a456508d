import { randomInt } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type AuthenticationResult,
  isExpired,
  minorToDecimal,
  type ThreeDSecureInput,
} from '@paywire/contracts';
import {
  type Acquirer,
  AcquirerUnavailable,
  type Approval,
  type AuthorizationRequest,
  type Decline,
  type DeclineReason,
} from './acquirer.ts';

/** The sandbox test cards of decisions.md: these decline; every other Luhn-valid card approves. */
const decliningCards = new Map<string, DeclineReason>([
  ['4917484589897107', 'DO_NOT_HONOR'],
  ['378282246310005', 'DO_NOT_HONOR'],
  ['6011000991300009', 'DO_NOT_HONOR'],
  ['3530111333300000', 'DO_NOT_HONOR'],
]);

const debitCards = new Set(['4007702835532454']);

/** Approved at the sandbox, but the first call for the card times out; an inquiry finds the approval. */
const timesOutOnceCard = '4000000000000259';
/** Always approved at the sandbox, and the answer is always lost: only an inquiry learns of it. */
const failsAfterApprovalCard = '4000000000000309';

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

function approve(request: AuthorizationRequest): Approval | Decline {
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
}

/** The sandbox's own book of one authorization: what a processor would show in its dashboard. */
export interface SandboxAuthorization {
  reference: string;
  answer: Approval | Decline;
  amountMinor: number;
  capturedMinor: number;
  /** A sale captured with its authorization can still be voided whole, as before settlement. */
  sale: boolean;
  refundedMinor: number;
  reversed: boolean;
}

export interface SandboxAcquirer extends Acquirer {
  /** Every authorization the sandbox answered, approved or declined, by reference. */
  readonly book: ReadonlyMap<string, SandboxAuthorization>;
}

/**
 * The sandbox acquirer: answers after `latencyMs` (a real processor takes hundreds of milliseconds), keeps its
 * own book of authorizations and what was captured, reversed and refunded of each, and refuses to capture,
 * refund or reverse beyond what its book allows, as a processor would. Every call is idempotent by its
 * reference: a repeat gets the first answer and moves nothing twice.
 */
export function createSandboxAcquirer(
  options: { latencyMs?: number; journal?: string } = {},
): SandboxAcquirer {
  const latencyMs = options.latencyMs ?? 0;
  const book = new Map<string, SandboxAuthorization>();
  const byNetworkId = new Map<string, SandboxAuthorization>();
  const operations = new Set<string>();
  const timedOut = new Set<string>();
  const keep = (entry: SandboxAuthorization, operation?: string) => {
    book.set(entry.reference, entry);
    if (entry.answer.approved) byNetworkId.set(entry.answer.networkTransactionId, entry);
    if (operation) operations.add(operation);
  };
  // The book outlives the process when journalled, as a processor's does: what a killed core's sandbox
  // approved is still there for the next one's inquiry and for tests comparing both sides.
  const { journal } = options;
  if (journal && existsSync(journal)) {
    for (const line of readFileSync(journal, 'utf8').split('\n')) {
      if (!line) continue;
      const { entry, operation } = JSON.parse(line) as { entry: SandboxAuthorization; operation?: string };
      keep(entry, operation);
    }
  }
  const record = (entry: SandboxAuthorization, operation?: string) => {
    keep(entry, operation);
    if (journal) appendFileSync(journal, `${JSON.stringify({ entry, operation })}\n`);
  };
  const wait = () => (latencyMs > 0 ? delay(latencyMs) : Promise.resolve());
  const authorization = (networkTransactionId: string) => {
    const found = byNetworkId.get(networkTransactionId);
    if (!found) throw new Error('sandbox acquirer: no such authorization');
    return found;
  };
  /** Runs an operation once per reference; a repeat of a done one succeeds without moving anything. */
  const once = async (reference: string, operation: () => SandboxAuthorization) => {
    await wait();
    if (operations.has(reference)) return;
    record(operation(), reference);
  };
  return {
    book,
    // The approval is booked as the request arrives and answered after the latency: a caller that dies
    // while waiting leaves an authorization at the acquirer that only an inquiry finds, the hard case.
    async authorize(request) {
      let entry = book.get(request.reference);
      if (!entry) {
        const answer = approve(request);
        entry = {
          reference: request.reference,
          answer,
          amountMinor: request.amountMinor,
          capturedMinor: answer.approved && request.capture ? request.amountMinor : 0,
          sale: request.capture === true,
          refundedMinor: 0,
          reversed: false,
        };
        record(entry);
      }
      await wait();
      const number = request.card?.number;
      if (number === failsAfterApprovalCard || (number === timesOutOnceCard && !timedOut.has(number))) {
        if (number === timesOutOnceCard) timedOut.add(number);
        throw new AcquirerUnavailable('sandbox acquirer: the answer was lost');
      }
      return entry.answer;
    },
    async inquire(reference) {
      await wait();
      return book.get(reference)?.answer ?? null;
    },
    profile(card) {
      const debit = card.cardClass ? card.cardClass !== 'CREDIT' : debitCards.has(card.number ?? '');
      return {
        cardSubType: debit ? 'DEBIT' : 'CREDIT',
        cardCategory:
          card.cardClass === 'PREPAID' ? 'PREPAID' : card.brand === 'AMEX' ? 'PLATINUM' : 'CLASSIC',
        issuingCountry: 'us',
      };
    },
    capture: (networkTransactionId, amountMinor, reference) =>
      once(reference, () => {
        const entry = authorization(networkTransactionId);
        if (entry.reversed || entry.capturedMinor > 0 || amountMinor > entry.amountMinor)
          throw new Error('sandbox acquirer: capture beyond the authorization');
        entry.capturedMinor = amountMinor;
        return entry;
      }),
    reverse: (networkTransactionId, reference) =>
      once(reference, () => {
        const entry = authorization(networkTransactionId);
        if ((entry.capturedMinor > 0 && !entry.sale) || entry.refundedMinor > 0 || entry.reversed)
          throw new Error('sandbox acquirer: only an open authorization or an untouched sale can be voided');
        entry.reversed = true;
        entry.capturedMinor = 0;
        return entry;
      }),
    refund: (networkTransactionId, amountMinor, reference) =>
      once(reference, () => {
        const entry = authorization(networkTransactionId);
        if (entry.refundedMinor + amountMinor > entry.capturedMinor)
          throw new Error('sandbox acquirer: refund beyond the captured amount');
        entry.refundedMinor += amountMinor;
        return entry;
      }),
  };
}

export const sandboxAcquirer = createSandboxAcquirer();
