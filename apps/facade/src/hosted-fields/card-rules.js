// GENERATED from packages/contracts/src/cards.ts by generate-card-rules.ts; do not edit.
// Regenerate: node apps/facade/src/hosted-fields/generate-card-rules.ts
/** Card rules shared by the domain and the hosted payment fields page: pure, no card data kept. */
export const cardBrands = ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'JCB', 'DINERS', 'UNIONPAY'];
export function passesLuhn(digits) {
  if (!/^\d+$/.test(digits)) return false;
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
// Order matters: Discover's 622126-622925 and 64/65 ranges sit inside UnionPay's 62 prefix.
const brandPrefixes = [
  ['AMEX', /^3[47]/],
  ['DINERS', /^3(?:0[0-59]|[689])/],
  ['JCB', /^35(?:2[89]|[3-8])/],
  ['VISA', /^4/],
  ['MASTERCARD', /^(?:5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720)/],
  ['DISCOVER', /^(?:6011|64[4-9]|65|622(?:12[6-9]|1[3-9]|[2-8]|9[01]|92[0-5]))/],
  ['UNIONPAY', /^62/],
];
export function brandOf(digits) {
  return brandPrefixes.find(([, prefix]) => prefix.test(digits))?.[0];
}
export function securityCodeLength(brand) {
  return brand === 'AMEX' ? 4 : 3;
}
/** A card is usable through the last day of its expiry month. */
export function isExpired(expirationMonth, expirationYear, now) {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  return expirationYear < year || (expirationYear === year && expirationMonth < month);
}
export function lastFour(digits) {
  return digits.slice(-4);
}
