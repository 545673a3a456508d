import { type CardBrand, passesLuhn } from '@paywire/contracts';

/**
 * The card networks' updater as the sandbox plays it (see docs/account-updater.md): documented test cards
 * decide each card's answer, every other card has no change. Paywire reaches no network's updater service,
 * so this answers in live mode too.
 */

/** What the network answers for a card it was sent. */
export type UpdateOutcome =
  | 'NUMBER_CHANGED'
  | 'CLOSED'
  | 'EXPIRY_CHANGED'
  | 'CONTACT_CARDHOLDER'
  | 'NO_CHANGE';

/** The original's codes and messages for a card's answer. */
export const outcomeAnswers: Record<UpdateOutcome, { code: string; message: string }> = {
  NUMBER_CHANGED: { code: '500', message: 'The account number was changed.' },
  CLOSED: { code: '501', message: 'The account was closed.' },
  EXPIRY_CHANGED: { code: '502', message: 'The expiration date was changed.' },
  CONTACT_CARDHOLDER: { code: '504', message: 'Contact the cardholder for updated information.' },
  NO_CHANGE: { code: '506', message: 'No changes found.' },
};

/** The original's codes for a card as it is received: approved, or not sent on and why. */
export const submissionAnswers = {
  approved: { code: '000', message: 'Approved for submission to account updater process.' },
  invalidNumber: { code: '301', message: 'Invalid account number: check the card number and resubmit.' },
  invalidExpiry: {
    code: '320',
    message: 'Invalid Expiration date: check the card expiration date and resubmit.',
  },
  unsupported: { code: '390', message: 'Card not supported.' },
} as const;

export type SubmissionAnswer = (typeof submissionAnswers)[keyof typeof submissionAnswers];

/** The brands the original's updater serves. */
const updatableBrands: ReadonlySet<CardBrand> = new Set(['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER']);

/** No issuer issues a card valid this many years ahead. */
const maxYearsAhead = 20;

/** How a card is received: brand known, Luhn-valid, a plausible expiry. */
export function submissionAnswer(
  card: { number: string; brand: CardBrand | undefined; expirationYear: string },
  now: Date,
): SubmissionAnswer {
  if (!passesLuhn(card.number)) return submissionAnswers.invalidNumber;
  if (Number(card.expirationYear) > now.getUTCFullYear() + maxYearsAhead)
    return submissionAnswers.invalidExpiry;
  if (!card.brand || !updatableBrands.has(card.brand)) return submissionAnswers.unsupported;
  return submissionAnswers.approved;
}

/** The sandbox's test cards (docs/conformance.md, Account updater); any other card has no change. */
const testCards: ReadonlyMap<string, UpdateOutcome> = new Map([
  ['4000000000000507', 'NUMBER_CHANGED'],
  ['5100000000000503', 'NUMBER_CHANGED'],
  ['4000000000000515', 'CLOSED'],
  ['5100000000000511', 'CLOSED'],
  ['4000000000000523', 'EXPIRY_CHANGED'],
  ['5100000000000529', 'EXPIRY_CHANGED'],
  ['4000000000000549', 'CONTACT_CARDHOLDER'],
  ['5100000000000545', 'CONTACT_CARDHOLDER'],
]);

export const sandboxOutcome = (number: string): UpdateOutcome => testCards.get(number) ?? 'NO_CHANGE';

/** The check digit that makes `body` Luhn-valid. */
function withCheckDigit(body: string): string {
  const digit = [...'0123456789'].find((candidate) => passesLuhn(body + candidate));
  return body + digit;
}

/**
 * The replacement card the sandbox's issuer sends for a changed number: the same issuer range (first six
 * digits) and length, the seventh digit moved on, so it is never the card it replaces.
 */
export function replacementNumber(number: string): string {
  const seventh = (Number(number[6]) + 1) % 10;
  return withCheckDigit(`${number.slice(0, 6)}${seventh}${number.slice(7, -1)}`);
}

/** A reissued card runs three years past the old one's expiry. */
export function renewedExpiry(card: { expirationMonth: string; expirationYear: string }) {
  return { expirationMonth: card.expirationMonth, expirationYear: String(Number(card.expirationYear) + 3) };
}
