import { z } from 'zod';
import { currencyExponent, fractionDigits, isCurrency } from './money.ts';

/**
 * Lenient inputs: JSON clients send numbers or numeric strings, XML documents only strings, so every
 * number and boolean accepts both and is normalised once here.
 */

const decimalText = /^\d{1,12}(?:\.\d+)?$/;

/** A positive amount as canonical decimal text ("010.50" -> "10.50"); fraction digits are checked per currency. */
export const amountInput = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (!decimalText.test(text) || !(Number(text) > 0)) {
    ctx.addIssue({ code: 'custom', message: 'must be a positive decimal amount' });
    return z.NEVER;
  }
  return text.replace(/^0+(?=\d)/, '');
});

export const currencyInput = z
  .string()
  .trim()
  .refine((code) => isCurrency(code), 'must be a supported ISO 4217 currency code');

/** Adds the 14021 issue when an amount has more fraction digits than its currency allows. */
export function checkAmountFitsCurrency(
  amount: string | undefined,
  currency: string | undefined,
  ctx: z.RefinementCtx,
  path: PropertyKey[] = ['amount'],
): void {
  if (amount === undefined || currency === undefined || !isCurrency(currency)) return;
  const allowed = currencyExponent(currency);
  if (fractionDigits(amount) > allowed) {
    ctx.addIssue({
      code: 'custom',
      path,
      message: `${currency} amounts allow at most ${allowed} fraction digits`,
      params: { errorName: 'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS' },
    });
  }
}

export const positiveIntegerInput = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^\d{1,15}$/, 'must be a positive integer'),
  ])
  .transform(Number)
  .pipe(
    z
      .number()
      .int('must be a positive integer')
      .positive('must be a positive integer')
      .max(Number.MAX_SAFE_INTEGER),
  );

export const booleanInput = z.union([
  z.boolean(),
  z.enum(['true', 'false']).transform((text) => text === 'true'),
]);

/** Non-empty trimmed text. NUL is refused here: PostgreSQL cannot store it, so it must never reach core. */
export function text(max: number) {
  return z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !value.includes('\u0000'), 'must not contain NUL characters');
}

export const optionalText = (max: number) => text(max).optional();

/** An element of the original's that Paywire refuses by name, with why, rather than ignoring it. */
export const refusedElement = (message: string) =>
  z
    .unknown()
    .refine((value) => value === undefined, message)
    .optional();

/** One of `values`, read in any case: the reference writes some in capitals and in lower case (SHORT-TEXT, boolean). */
export const upperCaseEnum = <const Values extends readonly [string, ...string[]]>(values: Values) =>
  z
    .string()
    .trim()
    .transform((value) => value.toUpperCase())
    .pipe(z.enum(values, `must be one of ${values.join(', ')}`));

/**
 * Refuses each item of a list whose key an earlier item already has (a currency limited twice, a sku name or
 * a merchantUpdaterId used twice), naming the item's property.
 */
export function refuseRepeats<T>(
  ctx: z.RefinementCtx,
  items: readonly T[] | undefined,
  at: { list: string; property: string },
  key: (item: T) => string,
  message: string,
): void {
  const seen = new Set<string>();
  items?.forEach((item, index) => {
    const value = key(item);
    if (seen.has(value)) ctx.addIssue({ code: 'custom', path: [at.list, index, at.property], message });
    seen.add(value);
  });
}

const positiveIdMessage = 'must be a positive integer';
/** An id in a path or query: a positive integer JavaScript holds exactly. */
export const positiveId = z.coerce
  .number({ error: positiveIdMessage })
  .int(positiveIdMessage)
  .positive(positiveIdMessage)
  .max(Number.MAX_SAFE_INTEGER, positiveIdMessage);

const pageSizeMessage = 'must be an integer from 1 to 500';
/** How many entries a page of one of our logs holds (`pagesize`). */
export const pageSize = z.coerce
  .number({ error: pageSizeMessage })
  .int(pageSizeMessage)
  .min(1, pageSizeMessage)
  .max(500, pageSizeMessage)
  .default(100);
