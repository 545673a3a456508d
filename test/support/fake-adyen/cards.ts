/**
 * How the fake decides an authorisation, after Adyen's test environment.
 *
 * Test cards (Adyen's published test card numbers; any other number that passes the Luhn check is
 * refused as "Invalid Card Number", one that fails it is a 422 as Adyen answers):
 *
 * | number              | brand | cvc  |
 * |---------------------|-------|------|
 * | 4111111111111111    | visa  | 737  |
 * | 4111111145551142    | visa  | 737  |
 * | 4988438843884305    | visa  | 737  |
 * | 5555555555554444    | mc    | 737  |
 * | 5555341244441115    | mc    | 737  |
 * | 2222400070000005    | mc    | 737  |
 * | 370000000000002     | amex  | 7373 |
 *
 * Results by `paymentMethod.holderName` (Adyen's "testing with card holder name" values):
 *
 * | holderName          | resultCode | refusalReason        | refusalReasonCode |
 * |---------------------|------------|----------------------|-------------------|
 * | anything else       | Authorised |                      |                   |
 * | DECLINED            | Refused    | Refused              | 2                 |
 * | REFERRAL            | Refused    | Referral             | 3                 |
 * | ERROR               | Error      | Acquirer Error       | 4                 |
 * | BLOCK_CARD          | Refused    | Blocked Card         | 5                 |
 * | CARD_EXPIRED        | Refused    | Expired Card         | 6                 |
 * | ISSUER_UNAVAILABLE  | Refused    | Issuer Unavailable   | 9                 |
 * | NOT_ENOUGH_BALANCE  | Refused    | Not enough balance   | 12                |
 * | ACQUIRER_FRAUD      | Refused    | Acquirer Fraud       | 14                |
 * | CVC_DECLINED        | Refused    | CVC Declined         | 24                |
 *
 * As Adyen documents, a wrong CVC or an expiry date in the past is a generic Refused (2).
 * `mpiData` with `authenticationResponse` or `directoryResponse` "N" is "3D Not Authenticated" (11).
 * Encrypted fields are read when they carry Adyen's `test_` prefix (`test_4111111111111111`); any
 * other ciphertext is a 422 "Unable to decrypt data", since the fake holds no decryption key.
 * Stored payment methods, network token references and Google Pay / Apple Pay tokens authorise as visa.
 */

export interface Outcome {
  resultCode: 'Authorised' | 'Refused' | 'Error';
  refusalReason?: string;
  refusalReasonCode?: string;
  brand: string;
  /** For card payments: what the issuer said of the CVC and the address. */
  cvcResult?: string;
  avsResult?: string;
}

/** A request the fake refuses before authorising, as Adyen does (422 with this code and message). */
export interface Unprocessable {
  errorCode: string;
  message: string;
}

const testCards = new Map([
  ['4111111111111111', { brand: 'visa', cvc: '737' }],
  ['4111111145551142', { brand: 'visa', cvc: '737' }],
  ['4988438843884305', { brand: 'visa', cvc: '737' }],
  ['5555555555554444', { brand: 'mc', cvc: '737' }],
  ['5555341244441115', { brand: 'mc', cvc: '737' }],
  ['2222400070000005', { brand: 'mc', cvc: '737' }],
  ['370000000000002', { brand: 'amex', cvc: '7373' }],
]);

const byHolderName: Record<string, [Outcome['resultCode'], string, string]> = {
  DECLINED: ['Refused', 'Refused', '2'],
  REFERRAL: ['Refused', 'Referral', '3'],
  ERROR: ['Error', 'Acquirer Error', '4'],
  BLOCK_CARD: ['Refused', 'Blocked Card', '5'],
  CARD_EXPIRED: ['Refused', 'Expired Card', '6'],
  ISSUER_UNAVAILABLE: ['Refused', 'Issuer Unavailable', '9'],
  NOT_ENOUGH_BALANCE: ['Refused', 'Not enough balance', '12'],
  ACQUIRER_FRAUD: ['Refused', 'Acquirer Fraud', '14'],
  CVC_DECLINED: ['Refused', 'CVC Declined', '24'],
};

type Fields = Record<string, unknown>;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return /^\d{12,19}$/.test(digits) && sum % 10 === 0;
}

/** A card field, plain or in its `encrypted...` form with Adyen's test prefix. */
function field(method: Fields, plain: string, encrypted: string): string | Unprocessable | undefined {
  const value = method[encrypted];
  if (typeof value === 'string') {
    if (!value.startsWith('test_')) return { errorCode: '174', message: 'Unable to decrypt data' };
    return value.slice('test_'.length);
  }
  return typeof method[plain] === 'string' ? (method[plain] as string) : undefined;
}

const refused = (brand: string, reason: string, code: string): Outcome => ({
  resultCode: 'Refused',
  refusalReason: reason,
  refusalReasonCode: code,
  brand,
});

export function decide(request: Fields, now: Date): Outcome | Unprocessable {
  const method = request.paymentMethod as Fields;
  const mpi = request.mpiData as Fields | undefined;
  const notAuthenticated = mpi?.authenticationResponse === 'N' || mpi?.directoryResponse === 'N';
  const number = field(method, 'number', 'encryptedCardNumber');
  if (number === undefined) {
    // A stored card, a network token reference or a wallet token: nothing to check but 3-D Secure.
    return notAuthenticated
      ? refused('visa', '3D Not Authenticated', '11')
      : { resultCode: 'Authorised', brand: 'visa' };
  }
  if (typeof number !== 'string') return number;
  const cvc = field(method, 'cvc', 'encryptedSecurityCode');
  const month = field(method, 'expiryMonth', 'encryptedExpiryMonth');
  const year = field(method, 'expiryYear', 'encryptedExpiryYear');
  for (const part of [cvc, month, year]) if (part !== undefined && typeof part !== 'string') return part;
  if (!luhn(number)) return { errorCode: '101', message: 'Invalid card number' };

  const card = testCards.get(number);
  if (!card) return refused('visa', 'Invalid Card Number', '8');
  const checks = {
    brand: card.brand,
    cvcResult: cvc === undefined ? '0 Unknown' : cvc === card.cvc ? '1 Matches' : '2 Does not match',
    avsResult: request.billingAddress ? '4 AVS not supported for this card type' : '5 No AVS data provided',
  };
  const expired =
    typeof month === 'string' &&
    typeof year === 'string' &&
    Number(year) * 12 + Number(month) < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
  if ((cvc !== undefined && cvc !== card.cvc) || expired)
    return { ...refused(card.brand, 'Refused', '2'), ...checks };
  if (notAuthenticated) return { ...refused(card.brand, '3D Not Authenticated', '11'), ...checks };
  const scripted = byHolderName[String(method.holderName ?? '').toUpperCase()];
  if (!scripted) return { resultCode: 'Authorised', ...checks };
  const [resultCode, refusalReason, refusalReasonCode] = scripted;
  return { resultCode, refusalReason, refusalReasonCode, ...checks };
}
