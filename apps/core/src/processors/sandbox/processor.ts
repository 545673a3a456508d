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
  type Approval,
  type AuthorizationRequest,
  type CardProfiler,
  type Decline,
  type DeclineReason,
  type ModificationOutcome,
  type ModificationRequest,
  type Processor,
  ProcessorUnavailable,
} from '../processor.ts';

/** The sandbox test cards (docs/conformance.md, Sandbox processor): these decline; every other Luhn-valid card approves. */
const decliningCards = new Map<string, DeclineReason>([
  ['4917484589897107', 'DO_NOT_HONOR'],
  ['378282246310005', 'DO_NOT_HONOR'],
  ['6011000991300009', 'DO_NOT_HONOR'],
  ['3530111333300000', 'DO_NOT_HONOR'],
]);

const debitCards = new Set(['4007702835532454']);

/** Approved at the sandbox, but the first call for the card times out; an inquiry finds the approval. */
const timesOutOnceCard = '4000000000000259';
/**
 * Always approved at the sandbox, and the answer is lost, and so is the first inquiry about it (the caller's,
 * right after): only a later inquiry (the recovery worker's) learns of it.
 */
const failsAfterApprovalCard = '4000000000000309';

function digits(count: number): string {
  return Array.from({ length: count }, () => randomInt(10)).join('');
}

/**
 * The sandbox's rules. A production wallet token, which Paywire decrypted, is charged by its card (or device
 * account) number and expiry like a card; a TEST-environment token is a dummy with no card inside, so only
 * the amount rule applies to it. Nothing is charged either way.
 */
function declineReason(request: AuthorizationRequest): DeclineReason | undefined {
  const card = request.card ?? request.wallet?.decrypted;
  const listed = card && decliningCards.get(card.number);
  if (listed) return listed;
  if (card && isExpired(Number(card.expirationMonth), Number(card.expirationYear), request.now))
    return 'EXPIRED_CARD';
  if (minorToDecimal(request.amountMinor, request.currency).endsWith('.51')) return 'INSUFFICIENT_FUNDS';
  if (request.card?.securityCode === '000') return 'CVV_ERROR';
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
  const networkTransactionId = digits(15);
  return {
    approved: true,
    processorReference: networkTransactionId,
    authorizationCode: digits(6),
    networkTransactionId,
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
  /** Refunds received and not done: they stay so until withdrawn (docs/api.md, Sandbox cards). */
  pendingRefundMinor?: number;
  reversed: boolean;
}

export interface SandboxProcessor extends Processor {
  /** Every authorization the sandbox answered, approved or declined, by reference. */
  readonly book: ReadonlyMap<string, SandboxAuthorization>;
}

/** The sandbox's issuer ranges: debit test cards, the wallets' card classes; every card issued in the US. */
export const sandboxCardProfile: CardProfiler = (card) => {
  const debit = card.cardClass ? card.cardClass !== 'CREDIT' : debitCards.has(card.number ?? '');
  return {
    cardSubType: debit ? 'DEBIT' : 'CREDIT',
    cardCategory: card.cardClass === 'PREPAID' ? 'PREPAID' : card.brand === 'AMEX' ? 'PLATINUM' : 'CLASSIC',
    issuingCountry: 'us',
  };
};

/**
 * The sandbox connector: answers after `latencyMs` (a real processor takes hundreds of milliseconds), keeps
 * its own book of authorizations and what was captured, voided and refunded of each, and refuses to capture,
 * refund or void beyond what its book allows, as a processor would. Every call is idempotent by its
 * reference: a repeat gets the first answer and moves nothing twice. It does every modification at once
 * (`done`), where a real processor confirms later, except a refund whose amount ends in .52: that one it only
 * receives, and it stays pending until withdrawn.
 */
export function createSandboxProcessor(
  options: { latencyMs?: number; journal?: string } = {},
): SandboxProcessor {
  const latencyMs = options.latencyMs ?? 0;
  const book = new Map<string, SandboxAuthorization>();
  const byProcessorReference = new Map<string, SandboxAuthorization>();
  const operations = new Set<string>();
  const timedOut = new Set<string>();
  const inquiryLost = new Set<string>();
  const keep = (entry: SandboxAuthorization, operation?: string) => {
    book.set(entry.reference, entry);
    if (entry.answer.approved) byProcessorReference.set(entry.answer.processorReference, entry);
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
  const authorization = (processorReference: string) => {
    const found = byProcessorReference.get(processorReference);
    if (!found) throw new Error('sandbox processor: no such authorization');
    return found;
  };
  const done: ModificationOutcome = { status: 'done' };
  /** Runs an operation once per reference; a repeat of a done one succeeds without moving anything. */
  const once = async (reference: string, operation: () => SandboxAuthorization | undefined) => {
    await wait();
    if (operations.has(reference)) return done;
    const entry = operation();
    if (entry) record(entry, reference);
    else operations.add(reference);
    return done;
  };
  const voidWhole = (entry: SandboxAuthorization) => {
    if ((entry.capturedMinor > 0 && !entry.sale) || entry.refundedMinor > 0 || entry.reversed)
      throw new Error('sandbox processor: only an open authorization or an untouched sale can be voided');
    entry.reversed = true;
    entry.capturedMinor = 0;
    return entry;
  };
  return {
    connector: 'sandbox',
    book,
    // The approval is booked as the request arrives and answered after the latency: a caller that dies
    // while waiting leaves an authorization at the processor that only an inquiry finds, the hard case.
    async authorize(request) {
      let entry = book.get(request.reference);
      if (!entry) {
        // a technical cancel that came first stands: the late request is refused
        const answer: Approval | Decline = operations.has(`technical-cancel:${request.reference}`)
          ? { approved: false, reason: 'DO_NOT_HONOR' }
          : approve(request);
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
        else inquiryLost.add(request.reference);
        throw new ProcessorUnavailable('sandbox processor: the answer was lost', true);
      }
      return entry.answer;
    },
    async inquire(reference) {
      await wait();
      if (inquiryLost.delete(reference)) throw new ProcessorUnavailable('sandbox processor: no answer', true);
      return book.get(reference)?.answer ?? 'unseen';
    },
    capture: ({ processorReference, amountMinor, reference }: ModificationRequest) =>
      once(reference, () => {
        const entry = authorization(processorReference);
        if (entry.reversed || entry.capturedMinor > 0 || amountMinor > entry.amountMinor)
          throw new Error('sandbox processor: capture beyond the authorization');
        entry.capturedMinor = amountMinor;
        return entry;
      }),
    cancel: ({ processorReference, reference }) =>
      once(reference, () => voidWhole(authorization(processorReference))),
    async refund({ processorReference, amountMinor, currency, reference }) {
      const held = minorToDecimal(amountMinor, currency).endsWith('.52');
      const outcome = await once(reference, () => {
        const entry = authorization(processorReference);
        const pendingMinor = entry.pendingRefundMinor ?? 0;
        if (entry.refundedMinor + pendingMinor + amountMinor > entry.capturedMinor)
          throw new Error('sandbox processor: refund beyond the captured amount');
        if (held) entry.pendingRefundMinor = pendingMinor + amountMinor;
        else entry.refundedMinor += amountMinor;
        return entry;
      });
      return held ? { status: 'received', processorReference: `refund-${reference}` } : outcome;
    },
    withdrawRefunds: ({ processorReference, amountMinor, reference }) =>
      once(reference, () => {
        const entry = authorization(processorReference);
        if ((entry.pendingRefundMinor ?? 0) < amountMinor)
          throw new Error('sandbox processor: no such pending refund to withdraw');
        entry.pendingRefundMinor = (entry.pendingRefundMinor ?? 0) - amountMinor;
        return entry;
      }),
    technicalCancel: (reference) =>
      once(`technical-cancel:${reference}`, () => {
        const entry = book.get(reference);
        return entry?.answer.approved && !entry.reversed ? voidWhole(entry) : undefined;
      }),
  };
}
