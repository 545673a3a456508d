import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type createProductInput,
  DomainError,
  minorToAmount,
  type CatalogProduct as PublicProduct,
  toMinorUnits,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { CatalogProduct, CatalogSku } from './entities.ts';
import { lockMerchant } from './queries.ts';

type CreateProduct = z.output<typeof createProductInput>;

function present(product: CatalogProduct, skus: CatalogSku[]): PublicProduct {
  return {
    productId: product.id,
    productName: product.name,
    skus: skus.map((sku) => ({
      skuId: sku.id,
      skuName: sku.name,
      price: { amount: minorToAmount(sku.priceMinor, sku.currency), currency: sku.currency },
    })),
  };
}

function addProduct(em: EntityManager, merchantId: number, input: CreateProduct) {
  const product = em.create(CatalogProduct, { merchantId, name: input.productName });
  const skus = input.skus.map((sku) =>
    em.create(CatalogSku, {
      merchantId,
      product,
      name: sku.skuName,
      currency: sku.price.currency,
      priceMinor: toMinorUnits(sku.price.amount, sku.price.currency),
    }),
  );
  return { product, skus };
}

export async function createProduct(ctx: MerchantContext, input: CreateProduct): Promise<PublicProduct> {
  return inTransaction(ctx.em, async (em) => {
    const { product, skus } = addProduct(em, ctx.merchantId, input);
    await em.flush();
    return present(product, skus);
  });
}

export async function getProduct(ctx: MerchantContext, productId: number): Promise<PublicProduct> {
  const product = await ctx.em.findOne(CatalogProduct, { id: productId, merchantId: ctx.merchantId });
  if (!product) throw new DomainError('RESOURCE_NOT_FOUND', `product ${productId} was not found`);
  const skus = await ctx.em.find(
    CatalogSku,
    { product, merchantId: ctx.merchantId },
    { orderBy: { id: 'asc' } },
  );
  return present(product, skus);
}

/** The merchant's skus among `ids`, by id; ids of no sku, or of another merchant's, are simply absent. */
export async function findSkus(
  em: EntityManager,
  merchantId: number,
  ids: readonly number[],
): Promise<Map<number, CatalogSku>> {
  const skus = await em.find(CatalogSku, { id: { $in: [...new Set(ids)] }, merchantId });
  return new Map(skus.map((sku) => [sku.id, sku]));
}

export const sampleProduct = {
  productName: 'Paywire Sample Product',
  skus: [{ skuName: 'Paywire Sample SKU', price: { amount: '10.00', currency: 'EUR' } }],
} as const satisfies CreateProduct;

/**
 * The sandbox merchant's sample product, made once: a second start finds it by name and leaves it. The
 * merchant's row is locked meanwhile, so two launchers starting together still make one.
 */
export async function ensureSampleProduct(em: EntityManager, merchantId: number): Promise<PublicProduct> {
  return inTransaction(em, async (tx) => {
    await executeParameterized(tx, lockMerchant, [merchantId]);
    const existing = await tx.findOne(
      CatalogProduct,
      { merchantId, name: sampleProduct.productName },
      { orderBy: { id: 'asc' } },
    );
    if (existing) {
      const skus = await tx.find(CatalogSku, { product: existing, merchantId }, { orderBy: { id: 'asc' } });
      return present(existing, skus);
    }
    const { product, skus } = addProduct(tx, merchantId, {
      productName: sampleProduct.productName,
      skus: sampleProduct.skus.map((sku) => ({ skuName: sku.skuName, price: { ...sku.price } })),
    });
    await tx.flush();
    return present(product, skus);
  });
}
