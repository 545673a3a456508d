import { ibanChecksumValid, passesLuhn } from '@paywire/contracts';

/**
 * What a log line must never carry, found by the value's shape wherever it sits: in a field no path
 * names, in a message, in an error's text. Paths (log.ts) catch the known fields first; this catches the rest.
 */

/** A card number's shape: 13 to 19 digits, optionally grouped by spaces or dashes. */
const panLike = /(?<![\d])\d(?:[ -]?\d){12,18}(?![\d])/g;
/** An IBAN: country, check digits, 11 to 30 letters and digits, optionally grouped by fours. */
const ibanLike = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g;
const credentials = /\b(pwc|whsec)_[A-Za-z0-9_+/=-]+/g;
const authorizations = /\b(Basic|Bearer) [A-Za-z0-9+/=._~-]+/g;

export const censor = '[redacted]';

/** The text with every card number (Luhn-valid), IBAN (mod-97-valid), credential and secret replaced. */
export function redactText(text: string): string {
  return text
    .replace(panLike, (match) => (passesLuhn(match.replace(/[ -]/g, '')) ? censor : match))
    .replace(ibanLike, (match) => (ibanChecksumValid(match.replace(/ /g, '')) ? censor : match))
    .replace(credentials, `$1_${censor}`)
    .replace(authorizations, `$1 ${censor}`);
}
