import { z } from 'zod';
import { securityCodeInput } from './card-input.ts';
import { cardBrands } from './cards.ts';
import {
  cartInput,
  expectedTotalPriceInput,
  localeInput,
  shopperContactInfoInput,
  webInfoInput,
} from './orders.ts';
import {
  booleanInput,
  currencyInput,
  optionalText,
  positiveId,
  positiveIntegerInput,
  text,
  upperCaseEnum,
} from './primitives.ts';
import { creditCardInfoInput } from './shoppers.ts';
import { merchantTransactionIdInput, softDescriptorInput } from './transactions.ts';

/**
 * The Extended API's shoppers, orders and custom parameters (docs/conformance.md, Extended API). JSON names
 * here; the XML documents (roots shopper, order, custom-parameter) are their kebab-case.
 */

export const maxExtendedShopperCards = 10;

/** POST /shoppers: a shopper with its contact and, optionally, cards to vault. */
export const extendedShopperInput = z.object({
  webInfo: webInfoInput,
  shopperInfo: z.object({
    /** The merchant's own id of the shopper: the vaulted shopper's merchantShopperId. */
    sellerShopperId: optionalText(50),
    storeId: optionalText(20),
    locale: localeInput.optional(),
    shopperCurrency: currencyInput.optional(),
    softDescriptor: softDescriptorInput.optional(),
    shopperContactInfo: shopperContactInfoInput,
    paymentInfo: z
      .object({
        creditCardsInfo: z
          .array(creditCardInfoInput)
          .max(
            maxExtendedShopperCards,
            `must hold at most ${maxExtendedShopperCards} credit-card-info elements`,
          )
          .optional(),
      })
      .optional(),
  }),
});
export type ExtendedShopperRequest = z.output<typeof extendedShopperInput>;

/** POST /orders: an order of catalogue skus for an existing shopper, paid with one of its vaulted cards. */
export const createOrderInput = z.object({
  orderingShopper: z.object({
    shopperId: positiveIntegerInput,
    /** The vaulted card to charge, by type and last four digits; the shopper's newest card when left out. */
    creditCard: z
      .object({
        cardType: z.enum(cardBrands, `must be one of ${cardBrands.join(', ')}`),
        cardLastFourDigits: z
          .string()
          .trim()
          .regex(/^\d{4}$/, 'must be 4 digits'),
        securityCode: securityCodeInput.optional(),
      })
      .optional(),
    webInfo: webInfoInput,
  }),
  cart: cartInput,
  expectedTotalPrice: expectedTotalPriceInput,
  softDescriptor: softDescriptorInput.optional(),
  /** The merchant's id of the order: the card sale's merchantTransactionId. */
  sellerOrderId: merchantTransactionIdInput.optional(),
});
export type CreateOrderRequest = z.output<typeof createOrderInput>;

// ---------------------------------------------------------------------------------------------------------
// Custom parameters: checkout fields of the merchant's catalogue.
// ---------------------------------------------------------------------------------------------------------

export const customParamTypes = [
  'SHORT-TEXT',
  'LONG-TEXT',
  'BOOLEAN',
  'FIXED-SELECTION',
  'MERCHANT-VALUE',
] as const;
export const titleAlignments = ['LEFT', 'RIGHT', 'TOP'] as const;
export const maxDropDownValues = 100;

const lengthInput = z.coerce
  .number({ error: 'must be an integer from 0 to 4000' })
  .int('must be an integer from 0 to 4000')
  .min(0, 'must be an integer from 0 to 4000')
  .max(4000, 'must be an integer from 0 to 4000');

const lengths = { minimumLength: lengthInput.optional(), maximumLength: lengthInput.optional() };

function lengthsInOrder(range: { minimumLength?: number; maximumLength?: number }, ctx: z.RefinementCtx) {
  const { minimumLength, maximumLength } = range;
  if (minimumLength !== undefined && maximumLength !== undefined && minimumLength > maximumLength)
    ctx.addIssue({ code: 'custom', path: ['minimumLength'], message: 'must not exceed maximumLength' });
}

const regexInput = text(500).refine((pattern) => {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}, 'must be a valid regular expression');

/** The settings object of each type; which must be present depends on the type. */
const typeSettings = {
  'SHORT-TEXT': 'shortTextType',
  'LONG-TEXT': 'longTextType',
  'FIXED-SELECTION': 'fixedSelectionType',
  'MERCHANT-VALUE': 'merchantValueType',
  BOOLEAN: undefined,
} as const;

export const customParameterInput = z.object({
  customParamTitle: text(100),
  active: booleanInput.default(true),
  mandatory: booleanInput.default(false),
  customParamSettings: z
    .object({
      customParamType: upperCaseEnum(customParamTypes),
      shortTextType: z
        .object({ ...lengths, regexValidation: regexInput.optional() })
        .superRefine(lengthsInOrder)
        .optional(),
      longTextType: z.object(lengths).superRefine(lengthsInOrder).optional(),
      fixedSelectionType: z
        .object({
          dropDownValues: z
            .array(text(100))
            .min(1, 'must hold at least one drop-down-value')
            .max(maxDropDownValues, `must hold at most ${maxDropDownValues} drop-down-value elements`),
        })
        .optional(),
      merchantValueType: z.object(lengths).superRefine(lengthsInOrder).optional(),
      visualSettings: z.object({ titleAlignment: upperCaseEnum(titleAlignments).optional() }).optional(),
    })
    .superRefine((settings, ctx) => {
      // A fixed selection needs its values; another type's settings are refused rather than kept unused.
      const own = typeSettings[settings.customParamType];
      if (own === 'fixedSelectionType' && !settings.fixedSelectionType)
        ctx.addIssue({ code: 'custom', path: [own], message: 'is required for a FIXED-SELECTION parameter' });
      for (const other of Object.values(typeSettings))
        if (other && other !== own && settings[other])
          ctx.addIssue({
            code: 'custom',
            path: [other],
            message: `does not apply to a ${settings.customParamType} parameter`,
          });
    }),
});
export type CustomParameterRequest = z.output<typeof customParameterInput>;

/** A parameter's settings in the reference's order (custom-parameter.xsd). */
export const customParamSettingsOrder = [
  'customParamType',
  'shortTextType',
  'longTextType',
  'fixedSelectionType',
  'merchantValueType',
  'visualSettings',
] as const satisfies ReadonlyArray<keyof CustomParameterRequest['customParamSettings']>;

export const customParameterIdInput = z.object({ customParamId: positiveId });
export const updateCustomParameterInput = customParameterInput.extend({ customParamId: positiveId });

/** GET /catalog/custom-parameters/{id}: root custom-parameter. */
export interface CustomParameter {
  customParamId: number;
  customParamTitle: string;
  active: boolean;
  mandatory: boolean;
  customParamSettings: CustomParameterRequest['customParamSettings'];
}
