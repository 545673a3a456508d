import { z } from 'zod';
import { booleanInput, optionalText, text } from './primitives.ts';
import { billingContactInfoInput } from './shoppers.ts';

/**
 * What a card transaction carries besides its payment, typed as the original's JSON reference types them:
 * 3-D Secure results from the merchant's authentication (threeDSecure), the merchant's own key-value data
 * (transactionMetaData), Level 2/3 purchase data (level3Data) and fraud screening data (transactionFraudInfo).
 */

/** A non-negative decimal of the reference's `decimal` fields that are not the payment's money (tax, freight). */
const decimalInput = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (!/^\d{1,12}(?:\.\d{1,4})?$/.test(text)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be a non-negative decimal with at most 4 fraction digits',
    });
    return z.NEVER;
  }
  return Number(text);
});

const yesNoInput = z.enum(['Y', 'N'], 'must be Y or N');

/** ECI values: 00, 01, 02 for MasterCard, 05, 06, 07 for the other brands (reference). */
export const eciValues = ['00', '01', '02', '05', '06', '07'] as const;
export const threeDSecureVersions = ['1.0.2', '2.1.0', '2.2.0'] as const;

/** The results the original answers in threeDSecure.authenticationResult. */
export const authenticationResults = [
  'AUTHENTICATION_SUCCEEDED',
  'AUTHENTICATION_FAILED',
  'AUTHENTICATION_UNAVAILABLE',
  'AUTHENTICATION_BYPASSED',
] as const;
export type AuthenticationResult = (typeof authenticationResults)[number];

const base64Input = (max: number) => text(max).regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64 encoded');

export const threeDSecureInput = z
  .object({
    /** A 3-D Secure authentication the service ran earlier (its reference id), instead of the values below. */
    threeDSecureReferenceId: z
      .union([z.number().int().nonnegative(), z.string()])
      .transform(String)
      .pipe(text(50)),
    /** The result token of the original's client-side library; its Node SDK sends it. */
    threeDSecureResultToken: text(200),
    eci: z.enum(eciValues, `must be one of ${eciValues.join(', ')}`),
    cavv: base64Input(100),
    xid: base64Input(100),
    dsTransactionId: z.uuid('must be the 3DS server transaction id, a UUID of 36 characters'),
    threeDSecureVersion: z.enum(threeDSecureVersions, `must be one of ${threeDSecureVersions.join(', ')}`),
  })
  .partial()
  .superRefine((secure, ctx) => {
    const external = secure.eci !== undefined || secure.cavv !== undefined;
    if (
      !external &&
      secure.threeDSecureReferenceId === undefined &&
      secure.threeDSecureResultToken === undefined
    ) {
      ctx.addIssue({
        code: 'custom',
        message:
          'needs threeDSecureReferenceId, threeDSecureResultToken, or eci and cavv from an external MPI',
      });
    }
    if (external && (secure.eci === undefined || secure.cavv === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [secure.eci === undefined ? 'eci' : 'cavv'],
        message: 'is required with an external MPI result: send eci and cavv together',
      });
    }
  });
export type ThreeDSecureInput = z.output<typeof threeDSecureInput>;

export const transactionMetaDataInput = z.object({
  metaData: z
    .array(
      z.object({
        metaKey: text(50),
        metaValue: text(500),
        metaDescription: text(500),
        isVisible: booleanInput.optional(),
      }),
    )
    .min(1, 'must hold at least one entry')
    .max(100, 'must hold at most 100 entries'),
});
export type TransactionMetaData = z.output<typeof transactionMetaDataInput>;

const level3DataItemInput = z.object({
  lineItemTotal: decimalInput.optional(),
  commodityCode: optionalText(12),
  description: optionalText(35),
  discountAmount: decimalInput.optional(),
  discountIndicator: yesNoInput.optional(),
  grossNetIndicator: yesNoInput.optional(),
  productCode: optionalText(12),
  itemQuantity: decimalInput.optional(),
  taxAmount: decimalInput.optional(),
  taxRate: decimalInput.optional(),
  taxType: optionalText(4),
  unitCost: decimalInput.optional(),
  unitOfMeasure: optionalText(3),
});

export const level3DataInput = z.object({
  customerReferenceNumber: optionalText(17),
  salesTaxAmount: decimalInput.optional(),
  freightAmount: decimalInput.optional(),
  dutyAmount: decimalInput.optional(),
  destinationZipCode: optionalText(10),
  destinationCountryCode: optionalText(3),
  shipFromZipCode: optionalText(10),
  discountAmount: decimalInput.optional(),
  taxAmount: decimalInput.optional(),
  taxRate: decimalInput.optional(),
  level3DataItems: z
    .array(level3DataItemInput)
    .min(1, 'must hold at least one item')
    .max(98, 'must hold at most 98 items'),
});
export type Level3Data = z.output<typeof level3DataInput>;

const udfInput = z.object({ udfName: text(20), udfValue: text(255) });

export const transactionFraudInfoInput = z.object({
  fraudSessionId: optionalText(32),
  shopperIpAddress: z.union([z.ipv4(), z.ipv6()], 'must be an IPv4 or IPv6 address').optional(),
  company: optionalText(100),
  shippingContactInfo: billingContactInfoInput.optional(), // the same contact fields and limits
  enterpriseSiteId: optionalText(50),
  // The reference's object with a udf array; the original's Node SDK types it as the bare array.
  enterpriseUdfs: z
    .union([
      z.object({ udf: z.array(udfInput).max(30) }),
      z
        .array(udfInput)
        .max(30)
        .transform((udf) => ({ udf })),
    ])
    .optional(),
});
export type TransactionFraudInfo = z.output<typeof transactionFraudInfoInput>;
