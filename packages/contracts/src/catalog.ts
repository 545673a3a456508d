import { z } from 'zod';
import {
  amountInput,
  booleanInput,
  checkAmountFitsCurrency,
  currencyInput,
  optionalText,
  positiveIntegerInput,
  refusedElement,
  text,
  upperCaseEnum,
} from './primitives.ts';

/**
 * The merchant's catalogue, as the original's Extended API has it (product.xsd, catalog-sku.xsd): a product
 * describes what is sold; its skus (contracts) carry the prices, and orders name skus by id. Paywire prices
 * a sku once, in one currency, for a one-time charge (docs/conformance.md, Catalogue).
 */

/** A (A)ctive or (I)nactive product or sku; D marks a deleted sku, which no order may name. */
export const productStatuses = ['A', 'I'] as const;
export const skuStatuses = ['A', 'I', 'D'] as const;
export const skuTypes = ['DIGITAL', 'PHYSICAL'] as const;
export const oneTimePayment = 'ONE TIME PAYMENT';
/** The sku's contract name when the merchant gives none, as the original names it. */
export const defaultContractName = 'Full Version';

export type ProductStatus = (typeof productStatuses)[number];
export type SkuStatus = (typeof skuStatuses)[number];
export type SkuType = (typeof skuTypes)[number];

/**
 * An optional element that may come back empty: a product's XML answer writes its unset elements empty
 * (product.xsd requires each), so a client sending a retrieved product back in an update sends them so.
 */
const emptyIsUnset = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    schema.optional(),
  );

/** POST /catalog/products (and PUT /catalog/products/{id}): root product. */
export const createProductInput = z.object({
  productStatus: upperCaseEnum(productStatuses).optional(),
  productName: text(100),
  productShortDescription: text(500),
  productLongDescription: emptyIsUnset(text(4000)),
  productInfoUrl: emptyIsUnset(text(500)),
  productImage: emptyIsUnset(text(500)),
  productMerchantDescriptor: emptyIsUnset(text(20)),
  productSupportEmail: emptyIsUnset(z.email('must be an email address').max(100)),
});
export type CreateProductInput = z.input<typeof createProductInput>;

export const productIdInput = z.object({ productId: positiveIntegerInput });
export const updateProductInput = createProductInput.extend({ productId: positiveIntegerInput });

const catalogPriceInput = z
  .object({ basePrice: booleanInput.optional(), currency: currencyInput, amount: amountInput })
  .superRefine((price, ctx) => checkAmountFitsCurrency(price.amount, price.currency, ctx, ['amount']));

/** Settings of the original's that Paywire does not act on: refused by name rather than ignored. */
const unsupported = (what: string) => refusedElement(`is not supported by Paywire: ${what}`);

/** A catalog-sku as a merchant sends it (POST /catalog/skus, PUT /catalog/skus/{id}). */
const skuShape = z.object({
  contractName: optionalText(100),
  productId: positiveIntegerInput,
  skuStatus: upperCaseEnum(skuStatuses).optional(),
  skuType: upperCaseEnum(skuTypes),
  pricingSettings: z.object({
    chargePolicyType: z
      .string()
      .trim()
      .transform((value) => value.toUpperCase())
      .pipe(
        z.literal(oneTimePayment, `must be ${oneTimePayment}: Paywire's catalogue prices one-time charges`),
      ),
    chargePolicy: z.object({
      oneTimeCharge: z.object({
        catalogPrices: z
          .array(catalogPriceInput)
          .length(1, 'must hold exactly one catalog-price: Paywire prices a sku in one currency'),
      }),
      freeTrial: unsupported('a free trial of a one-time charge'),
      initialPeriod: unsupported('periods; a recurring plan is made with POST /recurring/plans'),
      recurringPeriod: unsupported('periods; a recurring plan is made with POST /recurring/plans'),
    }),
    recurringPlanSettings: unsupported('a recurring plan is made with POST /recurring/plans'),
  }),
  skuImage: optionalText(500),
  skuQuantityPolicy: z
    .object({
      allowQuantityChange: booleanInput.optional(),
      minimumQuantity: positiveIntegerInput.optional(),
    })
    .optional(),
  collectShippingAddress: booleanInput.optional(),
  skuEffectiveDates: unsupported('effective dates'),
  skuCouponSettings: unsupported('coupons'),
  skuCustomParameters: unsupported(
    "linking parameters to a sku; a cart item's sku-parameter names any of the merchant's parameters",
  ),
});

function onePriceIsBase(sku: z.output<typeof skuShape>, ctx: z.RefinementCtx): void {
  const price = sku.pricingSettings.chargePolicy.oneTimeCharge.catalogPrices[0];
  if (price?.basePrice === false)
    ctx.addIssue({
      code: 'custom',
      path: ['pricingSettings', 'chargePolicy', 'oneTimeCharge', 'catalogPrices', 0, 'basePrice'],
      message: "must be true: the sku's one price is its base price",
    });
}

/** POST /catalog/skus: root catalog-sku, a one-time price in one currency. */
export const createSkuInput = skuShape.superRefine(onePriceIsBase);
export type CreateSkuInput = z.input<typeof createSkuInput>;

export const skuIdInput = z.object({ skuId: positiveIntegerInput });
/** PUT /catalog/skus/{id}: the whole sku again, as the original's Update SKU takes it. */
export const updateSkuInput = skuShape.extend({ skuId: positiveIntegerInput }).superRefine(onePriceIsBase);

/** GET /catalog/products/{id}: the product, its skus as links (paths in core; public URLs at the facade). */
export interface CatalogProduct {
  productId: number;
  productStatus: ProductStatus;
  productName: string;
  productShortDescription: string;
  productLongDescription?: string;
  productInfoUrl?: string;
  productImage?: string;
  productMerchantDescriptor?: string;
  productSupportEmail?: string;
  productSkus: string[];
}

/** GET /catalog/skus/{id}: root catalog-sku. */
export interface CatalogSku {
  skuId: number;
  /** "{product name} - {contract name}", as the original answers it. */
  skuName: string;
  contractName: string;
  productId: number;
  skuStatus: SkuStatus;
  skuType: SkuType;
  pricingSettings: {
    chargePolicyType: typeof oneTimePayment;
    chargePolicy: {
      oneTimeCharge: { catalogPrices: Array<{ basePrice: boolean; currency: string; amount: number }> };
    };
  };
  skuImage?: string;
  skuQuantityPolicy: { allowQuantityChange: boolean; minimumQuantity: number };
  collectShippingAddress: boolean;
}
