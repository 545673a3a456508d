import { z } from 'zod';
import { positiveIntegerInput } from './primitives.ts';

/**
 * The split of a transaction between the merchant and its vendors, as requests and answers carry it
 * (docs/marketplace.md, Split payments): apart from marketplace.ts so transactions can use it.
 */

/** At most ten vendors on one transaction (the reference's VENDOR_LIMIT_MAX). */
export const maxVendorsPerTransaction = 10;

/** A percent from 0 to 100 with at most two decimals (core keeps it as hundredths: percentHundredths). */
export const percentInput = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const decimal = typeof value === 'number' ? String(value) : value.trim();
  if (!/^\d{1,3}(?:\.\d{1,2})?$/.test(decimal) || Number(decimal) > 100) {
    ctx.addIssue({ code: 'custom', message: 'must be a percent from 0 to 100 with at most two decimals' });
    return z.NEVER;
  }
  return Number(decimal);
});

/** A percent as whole hundredths (12.5 -> 1250), so splits are computed in integers. */
export const percentHundredths = (percent: number): number => Math.round(percent * 100);

/** One object or an array of them, read as an array (XML repeats an element; one arrives as an object). */
export const listOf = <T extends z.ZodType>(item: T) =>
  z.preprocess((value) => (value === undefined || Array.isArray(value) ? value : [value]), z.array(item));

/** An amount of 0 or more as canonical decimal text; its fraction digits are checked against the currency by core. */
export const commissionAmountInput = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const decimal = typeof value === 'number' ? String(value) : value.trim();
  if (!/^\d{1,12}(?:\.\d+)?$/.test(decimal)) {
    ctx.addIssue({ code: 'custom', message: 'must be a decimal amount of 0 or more' });
    return z.NEVER;
  }
  return decimal.replace(/^0+(?=\d)/, '');
});

/** One vendor's part of a transaction: a percent or an amount, else the vendor agreement's percent. */
export const vendorInfoInput = z
  .object({
    vendorId: positiveIntegerInput,
    commissionPercent: percentInput.optional(),
    commissionAmount: commissionAmountInput.optional(),
  })
  .superRefine((info, ctx) => {
    if (info.commissionPercent !== undefined && info.commissionAmount !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['commissionAmount'],
        message: 'send a commission percent or a commission amount, not both',
      });
    }
  });
export type VendorInfoInput = z.output<typeof vendorInfoInput>;

/** `vendorsInfo: {vendorInfo: [...]}` (XML repeats <vendor-info>, so one arrives as an object). */
export const vendorsInfoInput = z.object({
  vendorInfo: listOf(vendorInfoInput).superRefine((list, ctx) => {
    if (list.length > maxVendorsPerTransaction) {
      ctx.addIssue({
        code: 'custom',
        message: `at most ${maxVendorsPerTransaction} vendors on one transaction`,
        params: { errorName: 'VENDOR_LIMIT_MAX' },
      });
    }
  }),
});

/**
 * A payment request's split (a card sale, an alt-transaction): `vendorInfo` for one vendor or `vendorsInfo`,
 * spread into its object schema; checkSplitForm refuses both at once.
 */
export const splitInputs = {
  vendorInfo: vendorInfoInput.optional(),
  vendorsInfo: vendorsInfoInput.optional(),
};

export function checkSplitForm(
  request: { vendorInfo?: unknown; vendorsInfo?: unknown },
  ctx: z.RefinementCtx,
): void {
  if (request.vendorInfo && request.vendorsInfo) {
    ctx.addIssue({
      code: 'custom',
      path: ['vendorsInfo'],
      message: 'send either vendorInfo or vendorsInfo, not both',
    });
  }
}

/** The split as a transaction answer shows it, in the form the request used. */
export interface VendorInfo {
  vendorId: number;
  commissionPercent?: number;
  commissionAmount?: number;
}
export interface VendorsInfo {
  vendorInfo: VendorInfo[];
}
/** What an answer adds for a split payment: one of the two, as the request sent it. */
export interface SplitShown {
  vendorInfo?: VendorInfo;
  vendorsInfo?: VendorsInfo;
}

/** A vendor's refund amount as sent; core reads it (a bad one is 14043, zero or less 14031, not 10001). */
export const vendorAmountInput = z.union([z.number(), z.string()]).transform((value) => String(value).trim());

/** A refund's vendor amounts: `vendorAmount` (the transaction's one vendor) or one per vendor. */
export const vendorRefundInfoInput = z.object({
  vendorId: positiveIntegerInput,
  vendorAmount: vendorAmountInput,
});
export const vendorsRefundInfoInput = z.object({ vendorRefundInfo: listOf(vendorRefundInfoInput) });
