import { DomainError } from './errors.ts';

/**
 * Money is never a float in the domain: amounts travel as canonical decimal strings in requests and as
 * integer minor units in storage. Each currency carries its own exponent.
 */

// ISO 4217 currencies we accept, grouped by exponent (decimal places of the minor unit).
const zeroDecimal = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const threeDecimal = 'BHD IQD JOD KWD LYD OMR TND';
const twoDecimal =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF ' +
  'CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF ' +
  'IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR ' +
  'MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD ' +
  'SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VES WST XCD YER ZAR ZMW ZWL';

const exponents = new Map<string, number>([
  ...zeroDecimal.split(' ').map((c) => [c, 0] as const),
  ...twoDecimal.split(' ').map((c) => [c, 2] as const),
  ...threeDecimal.split(' ').map((c) => [c, 3] as const),
]);

export function isCurrency(code: string): boolean {
  return exponents.has(code);
}

export function currencyExponent(currency: string): number {
  const exponent = exponents.get(currency);
  if (exponent === undefined) throw new RangeError(`unknown currency ${currency}`);
  return exponent;
}

/** Digits after the point in a canonical decimal string ("10.5" -> 1, "10" -> 0). */
export function fractionDigits(decimal: string): number {
  const point = decimal.indexOf('.');
  return point < 0 ? 0 : decimal.length - point - 1;
}

/** "10.5" in EUR -> 1050. The caller has checked the fraction digits fit the currency. */
export function toMinorUnits(decimal: string, currency: string): number {
  const exponent = currencyExponent(currency);
  const [whole = '0', fraction = ''] = decimal.split('.');
  if (fraction.length > exponent)
    throw new RangeError(`${decimal} has more than ${exponent} fraction digits`);
  return Number(whole + fraction.padEnd(exponent, '0'));
}

/**
 * An amount checked against a currency known only once its transaction is found (a capture or refund), in
 * minor units: more fraction digits than the currency has is 14021 naming `amount`.
 */
export function amountInMinorUnits(amount: string, currency: string, property = 'amount'): number {
  if (fractionDigits(amount) > currencyExponent(currency)) {
    throw new DomainError(
      'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS',
      `${currency} amounts allow at most ${currencyExponent(currency)} fraction digits`,
      { name: property, messageValue: amount },
    );
  }
  return toMinorUnits(amount, currency);
}

/** 1050 in EUR -> "10.50": exact decimal text of a minor-unit amount. */
export function minorToDecimal(minor: number, currency: string): string {
  const exponent = currencyExponent(currency);
  const digits = String(minor).padStart(exponent + 1, '0');
  return exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** Public responses carry amounts as JSON numbers; the decimal text parses to the nearest double exactly. */
export function minorToAmount(minor: number, currency: string): number {
  return Number(minorToDecimal(minor, currency));
}
