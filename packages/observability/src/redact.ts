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

function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function passesMod97(iban: string): boolean {
  const compact = iban.replace(/ /g, '');
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = char >= 'A' ? String(char.charCodeAt(0) - 55) : char;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

/** The text with every card number (Luhn-valid), IBAN (mod-97-valid), credential and secret replaced. */
export function redactText(text: string): string {
  return text
    .replace(panLike, (match) => (passesLuhn(match.replace(/[ -]/g, '')) ? censor : match))
    .replace(ibanLike, (match) => (passesMod97(match) ? censor : match))
    .replace(credentials, `$1_${censor}`)
    .replace(authorizations, `$1 ${censor}`);
}
