import { z } from 'zod';
import {
  amountInput,
  checkAmountFitsCurrency,
  currencyInput,
  positiveIntegerInput,
  refuseRepeats,
  text,
} from './primitives.ts';

/**
 * The merchant's catalogue: products and their skus, each sku with one price. Orders name skus by id and
 * take their name and price from here (ours: the interface shows only sku-id in a cart).
 */

export const maxSkusPerProduct = 50;

const skuInput = z
  .object({
    skuName: text(100),
    price: z.object({ amount: amountInput, currency: currencyInput }),
  })
  .superRefine((sku, ctx) =>
    checkAmountFitsCurrency(sku.price.amount, sku.price.currency, ctx, ['price', 'amount']),
  );

export const createProductInput = z
  .object({
    productName: text(100),
    skus: z
      .array(skuInput)
      .min(1, 'must hold at least one sku')
      .max(maxSkusPerProduct, `must hold at most ${maxSkusPerProduct} skus`),
  })
  .superRefine((product, ctx) =>
    refuseRepeats(
      ctx,
      product.skus,
      { list: 'skus', property: 'skuName' },
      (sku) => sku.skuName.toLowerCase(),
      'is already the name of another sku of this product',
    ),
  );

export const productIdInput = z.object({ productId: positiveIntegerInput });

export type CreateProductInput = z.input<typeof createProductInput>;

export interface CatalogSku {
  skuId: number;
  skuName: string;
  price: { amount: number; currency: string };
}

/** The public product body (JSON shape; the XML, root product with skus/sku, is derived from it). */
export interface CatalogProduct {
  productId: number;
  productName: string;
  skus: CatalogSku[];
}
