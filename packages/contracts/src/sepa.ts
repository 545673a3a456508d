import { z } from 'zod';
import { checkEcpAccount, type EcpAccount, ecpTransactionInput, type ProcessingError } from './ach.ts';
import {
  amountInput,
  booleanInput,
  checkAmountFitsCurrency,
  positiveIntegerInput,
  text,
} from './primitives.ts';
import { type TransactionMetaData, transactionMetaDataInput } from './transaction-details.ts';
import { merchantTransactionIdInput } from './transactions.ts';
import { checkSplitForm, type SplitShown, splitInputs } from './vendor-split.ts';

/**
 * SEPA direct debit: the supported shopper countries (docs/conformance.md, SEPA direct debit), IBAN rules, and the
 * alt-transactions request and response shapes.
 */

/** IBAN length of each supported country (ISO 13616 registry). */
const ibanLengths: Readonly<Record<string, number>> = {
  AT: 20,
  BE: 16,
  CY: 28,
  DE: 22,
  EE: 20,
  ES: 24,
  FI: 18,
  FR: 27,
  GR: 27,
  IE: 22,
  IT: 27,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MT: 31,
  NL: 18,
  PT: 25,
  SI: 19,
  SK: 24,
  SM: 27,
};

/** The 21 countries whose shoppers can pay by SEPA direct debit. */
export const sepaCountries: readonly string[] = Object.keys(ibanLengths);

/** ISO 7064 mod 97-10 over the rearranged IBAN: letters count as 10..35; a valid IBAN leaves 1. */
export function ibanChecksumValid(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const character of rearranged) {
    const code = character.charCodeAt(0);
    const value = code >= 65 ? code - 55 : code - 48;
    remainder = (value >= 10 ? remainder * 100 + value : remainder * 10 + value) % 97;
  }
  return remainder === 1;
}

const ibanShape = /^[A-Z]{2}\d{2}[A-Z0-9]{1,30}$/;

/**
 * An IBAN as shoppers type it: spaces removed, upper-cased, then checked for a supported country, that
 * country's length and the mod-97 check digits. The value is never part of a message.
 */
export const ibanInput: z.ZodType<string, unknown> = z.string().transform((value, ctx) => {
  const iban = value.replace(/\s+/g, '').toUpperCase();
  const fail = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  if (!ibanShape.test(iban))
    return fail('must be an IBAN: a country code, two check digits and up to 30 letters or digits');
  const country = iban.slice(0, 2);
  const length = ibanLengths[country];
  if (length === undefined) return fail(`country ${country} is not supported for SEPA direct debit`);
  if (iban.length !== length) return fail(`a ${country} IBAN has ${length} characters, not ${iban.length}`);
  if (!ibanChecksumValid(iban)) return fail('failed the IBAN mod-97 check');
  return iban;
});

const bicInput = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/, 'must be a BIC of 8 or 11 characters');

/**
 * The account to debit: a new IBAN, or (for a vaulted shopper) none, or only its first and last four
 * characters to pick one of the shopper's stored SEPA accounts, as the original's requests do.
 */
export const sepaDirectDebitTransactionInput = z.object({
  iban: ibanInput.optional(),
  bic: bicInput.optional(),
  ibanFirstFour: z.string().trim().toUpperCase().length(4, 'must be 4 characters').optional(),
  ibanLastFour: z.string().trim().toUpperCase().length(4, 'must be 4 characters').optional(),
});

/** Alt-transactions debit a bank account: SEPA in euros, ECP/ACH in US dollars. */
const debitCurrencies = { sepa: 'EUR', ecp: 'USD' } as const;

export const createAltTransactionInput = z
  .object({
    sepaDirectDebitTransaction: sepaDirectDebitTransactionInput.optional(),
    ecpTransaction: ecpTransactionInput.optional(),
    payerInfo: z.object({ firstName: text(100), lastName: text(100) }).optional(),
    amount: amountInput,
    currency: z
      .string()
      .trim()
      .pipe(z.enum(['EUR', 'USD'], 'EUR for SEPA direct debit, USD for ECP')),
    authorizedByShopper: booleanInput.refine(
      (accepted) => accepted,
      'must be true: the shopper has to accept the mandate',
    ),
    vaultedShopperId: positiveIntegerInput.optional(),
    merchantTransactionId: merchantTransactionIdInput.optional(),
    transactionMetaData: transactionMetaDataInput.optional(),
    ...splitInputs,
  })
  .superRefine((request, ctx) => {
    checkAmountFitsCurrency(request.amount, request.currency, ctx);
    checkSplitForm(request, ctx);
    const ecp = request.ecpTransaction !== undefined;
    if (ecp && request.sepaDirectDebitTransaction !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['ecpTransaction'],
        message: 'send one of ecpTransaction or sepaDirectDebitTransaction',
      });
    }
    const expected = debitCurrencies[ecp ? 'ecp' : 'sepa'];
    if (request.currency !== expected) {
      ctx.addIssue({
        code: 'custom',
        path: ['currency'],
        message: `${expected} only`,
      });
    }
    if (request.ecpTransaction)
      checkEcpAccount(request.ecpTransaction, request.vaultedShopperId !== undefined, ctx);
    if (request.vaultedShopperId === undefined && request.payerInfo === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['payerInfo'],
        message: 'is required unless vaultedShopperId is given',
      });
    }
    // A returning shopper pays from a stored account; anyone else names the IBAN.
    if (request.vaultedShopperId !== undefined || ecp) return;
    if (request.sepaDirectDebitTransaction?.iban === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['sepaDirectDebitTransaction', 'iban'],
        message: 'is required unless vaultedShopperId names a shopper with a stored SEPA account',
      });
    }
  });

export type CreateAltTransactionInput = z.input<typeof createAltTransactionInput>;

export const altTransactionIdInput = z.object({ transactionId: text(50) });

/**
 * Languages of the mandate and pre-notification texts (ISO 639-1): English and the original's 22 (its Tools
 * API reference lists bg, cs, da, nl, et, fi, fr, de, el, hu, it, lv, lt, mt, no, pl, pt, ro, sk, sl, es, sv).
 */
export const sepaLanguages = [
  'en',
  'bg',
  'cs',
  'da',
  'de',
  'el',
  'es',
  'et',
  'fi',
  'fr',
  'hu',
  'it',
  'lt',
  'lv',
  'mt',
  'nl',
  'no',
  'pl',
  'pt',
  'ro',
  'sk',
  'sl',
  'sv',
] as const;
export type SepaLanguage = (typeof sepaLanguages)[number];

const languageInput = z
  .string()
  .trim()
  .toLowerCase()
  .refine(
    (code): code is SepaLanguage => (sepaLanguages as readonly string[]).includes(code),
    `must be one of ${sepaLanguages.join(', ')}`,
  );

/** Without a transaction id the original answers the template, placeholders and all. */
export const transactionPreNotificationInput = z.object({
  transactionId: text(50).optional(),
  language: languageInput.optional(),
});

/** Ours: the pre-notification of a SEPA subscription's next debit. */
export const subscriptionPreNotificationInput = z.object({
  subscriptionId: positiveIntegerInput,
  language: languageInput.optional(),
});

/** The public endpoint's query: a transaction id, a subscription id (ours) or neither, not both. */
export const preNotificationInput = transactionPreNotificationInput
  .extend({ subscriptionId: positiveIntegerInput.optional() })
  .superRefine((input, ctx) => {
    if (input.transactionId !== undefined && input.subscriptionId !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['subscriptionId'],
        message: 'send transactionid or subscriptionid, not both',
      });
  });

export const mandateTextInput = z.object({ language: languageInput.optional() });

export type SepaStatus = 'PENDING' | 'SUCCESS' | 'FAIL' | 'REFUNDED';

/**
 * The public alt-transaction body (JSON shape; the XML, root alt-transaction, is derived from it), with its
 * split as sent (SplitShown).
 */
export interface AltTransaction extends SplitShown {
  transactionId: string;
  merchantTransactionId?: string;
  amount: number;
  currency: 'EUR' | 'USD';
  payerInfo: { firstName: string; lastName: string };
  vaultedShopperId: number;
  authorizedByShopper: true;
  transactionMetaData?: TransactionMetaData;
  /** Exactly one of the two: the account debited. */
  ecpTransaction?: EcpAccount;
  sepaDirectDebitTransaction?: SepaDebitDetails;
  /** A failed or returned ACH debit adds the bank's return code as a processing error (docs/ach.md, Returns). */
  processingInfo: { processingStatus: SepaStatus; processingErrors?: ProcessingError[] };
}

/** The original's translations object, for mandate and pre-notification texts alike. */
export interface SepaTranslations {
  translations: Array<{ language: SepaLanguage; translationText: string }>;
}

/** What a debit shows of its account and mandate, in alt-transactions and in order invoices alike. */
export interface SepaDebitDetails {
  ibanFirstFour: string;
  ibanLastFour: string;
  mandateId: string;
  mandateDate: string;
  preNotificationText: string;
  /** A path from core; the facade puts the public base URL in front. */
  preNotificationTranslationRef: string;
}

/** Where a debit's pre-notification texts are (see docs/conformance.md, SEPA direct debit), under the public base URL. */
export const preNotificationPath = (transactionId: string) =>
  `/services/2/translations/sepa/prenotification?transactionid=${encodeURIComponent(transactionId)}`;

/** Where the pre-notification of a SEPA subscription's next debit is, under the public base URL. */
export const subscriptionPreNotificationPath = (subscriptionId: number) =>
  `/services/2/translations/sepa/prenotification?subscriptionid=${subscriptionId}`;

/** What the vaulted shopper shows of each SEPA mandate. */
export interface SepaDirectDebitInfo {
  sepaDirectDebit: { ibanFirstFour: string; ibanLastFour: string; mandateId: string; mandateDate: string };
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (value: number) => String(value).padStart(2, '0');

/** dd-Mon-yy in UTC (e.g. 05-Mar-26): mandate dates and invoice dates as the original shows them. */
export function shortDate(date: Date): string {
  return `${pad2(date.getUTCDate())}-${months[date.getUTCMonth()]}-${pad2(date.getUTCFullYear() % 100)}`;
}
