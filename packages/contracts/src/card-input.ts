import { z } from 'zod';
import { brandOf, passesLuhn, securityCodeLength } from './cards.ts';

/** Card data as a merchant sends it. Checked here so no invalid card reaches the processor. */

const digitsInput = (name: string, pattern: RegExp) =>
  z.union([z.string(), z.number().int().nonnegative()]).transform((value, ctx) => {
    const digits = String(value).trim();
    if (!pattern.test(digits)) {
      ctx.addIssue({ code: 'custom', message: `${name} is not valid` });
      return z.NEVER;
    }
    return digits;
  });

export const expirationMonthInput = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const month = Number(String(value).trim());
  if (!Number.isInteger(month) || month < 1 || month > 12 || !/^\d{1,2}$/.test(String(value).trim())) {
    ctx.addIssue({ code: 'custom', message: 'must be a month from 01 to 12' });
    return z.NEVER;
  }
  return String(month).padStart(2, '0');
});

export const expirationYearInput = digitsInput('expiration year', /^\d{4}$/);

// Card numbers arrive as strings: a JSON number would already have lost digits beyond 2^53.
export const cardNumberInput = z
  .string()
  .trim()
  .superRefine((digits, ctx) => {
    if (!/^\d{12,19}$/.test(digits)) ctx.addIssue({ code: 'custom', message: 'must be 12 to 19 digits' });
    else if (!passesLuhn(digits)) ctx.addIssue({ code: 'custom', message: 'failed the Luhn check' });
    else if (!brandOf(digits)) ctx.addIssue({ code: 'custom', message: 'is not of a supported card brand' });
  });

export const securityCodeInput = digitsInput('security code', /^\d{3,4}$/);

export const creditCardInput = z
  .object({
    cardNumber: cardNumberInput,
    securityCode: securityCodeInput.optional(),
    expirationMonth: expirationMonthInput,
    expirationYear: expirationYearInput,
  })
  .superRefine((card, ctx) => {
    const expected = securityCodeLength(brandOf(card.cardNumber));
    if (card.securityCode !== undefined && card.securityCode.length !== expected) {
      ctx.addIssue({
        code: 'custom',
        path: ['securityCode'],
        message: `must be ${expected} digits for this card`,
      });
    }
  });

export type CreditCardInput = z.output<typeof creditCardInput>;

/** Properties that hold card or bank account data or other secrets, or objects that do: values under them are never echoed in an error. */
export const sensitiveProperties = new Set([
  'creditCard',
  'cardNumber',
  'securityCode',
  'ccNumber',
  'cvv',
  'wallet',
  'encodedPaymentToken',
  'iban',
  // An IBAN sent where its object belongs is still an IBAN.
  'sepaDirectDebitTransaction',
  'sepaDirectDebit',
  'sepaDirectDebitsInfo',
  // A processor account's secrets (processors.ts).
  'credentials',
  // A vendor's bank account and identity numbers (marketplace.ts).
  'payoutInfo',
  'bankAccountId',
  'personalIdentificationNumber',
  'driverLicenseNumber',
  'passportNumber',
  // A console user's password (partners.ts).
  'password',
]);
