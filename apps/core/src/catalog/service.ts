import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type createProductInput,
  type createSkuInput,
  DomainError,
  defaultContractName,
  minorToAmount,
  oneTimePayment,
  type CatalogProduct as PublicProduct,
  type CatalogSku as PublicSku,
  toMinorUnits,
  type updateProductInput,
  type updateSkuInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { CatalogProduct, CatalogSku } from './entities.ts';
import { lockMerchant, renameProductSkus } from './queries.ts';

type ProductFields = z.output<typeof createProductInput>;
type SkuFields = z.output<typeof createSkuInput>;

/** Core writes a sku's link as a path; the facade puts it on the public base URL. */
export const skuPath = (skuId: number) => `/services/2/catalog/skus/${skuId}`;

/** `{key: value}` when the column has a value, else nothing: optional elements are left out, not empty. */
const optional = <K extends string>(key: K, value: string | null | undefined) =>
  (value == null ? {} : { [key]: value }) as Partial<Record<K, string>>;

function presentProduct(product: CatalogProduct, skus: readonly CatalogSku[]): PublicProduct {
  return {
    productId: product.id,
    productStatus: product.status,
    productName: product.name,
    productShortDescription: product.shortDescription,
    ...optional('productLongDescription', product.longDescription),
    ...optional('productInfoUrl', product.infoUrl),
    ...optional('productImage', product.image),
    ...optional('productMerchantDescriptor', product.merchantDescriptor),
    ...optional('productSupportEmail', product.supportEmail),
    productSkus: skus.map((sku) => skuPath(sku.id)),
  };
}

function presentSku(sku: CatalogSku): PublicSku {
  return {
    skuId: sku.id,
    skuName: sku.name,
    contractName: sku.contractName,
    productId: sku.product.id,
    skuStatus: sku.status,
    skuType: sku.skuType,
    pricingSettings: {
      chargePolicyType: oneTimePayment,
      chargePolicy: {
        oneTimeCharge: {
          catalogPrices: [
            { basePrice: true, currency: sku.currency, amount: minorToAmount(sku.priceMinor, sku.currency) },
          ],
        },
      },
    },
    ...optional('skuImage', sku.image),
    skuQuantityPolicy: {
      allowQuantityChange: sku.allowQuantityChange,
      minimumQuantity: sku.minimumQuantity,
    },
    collectShippingAddress: sku.collectShippingAddress,
  };
}

/** The product's columns from its fields; a descriptor is shown on statements in capitals, as the original does. */
function productColumns(fields: ProductFields) {
  return {
    status: fields.productStatus ?? 'A',
    name: fields.productName,
    shortDescription: fields.productShortDescription,
    longDescription: fields.productLongDescription ?? null,
    infoUrl: fields.productInfoUrl ?? null,
    image: fields.productImage ?? null,
    merchantDescriptor: fields.productMerchantDescriptor?.toUpperCase() ?? null,
    supportEmail: fields.productSupportEmail ?? null,
  } as const;
}

async function findProduct(em: EntityManager, merchantId: number, productId: number, property?: string) {
  const product = await em.findOne(CatalogProduct, { id: productId, merchantId });
  if (product) return product;
  const message = `product ${productId} was not found`;
  // named in a sku's body, an unknown product is a bad property; named in the path, a missing resource
  if (property)
    throw new DomainError('VALIDATION_GENERAL_FAILURE', `${property}: ${message}`, {
      name: property,
      messageValue: String(productId),
    });
  throw new DomainError('RESOURCE_NOT_FOUND', message);
}

async function findSku(em: EntityManager, merchantId: number, skuId: number) {
  const sku = await em.findOne(CatalogSku, { id: skuId, merchantId }, { populate: ['product'] });
  if (!sku) throw new DomainError('RESOURCE_NOT_FOUND', `sku ${skuId} was not found`);
  return sku;
}

export async function createProduct(
  ctx: MerchantContext,
  input: ProductFields,
): Promise<{ productId: number }> {
  return inTransaction(ctx.em, async (em) => {
    const product = em.create(CatalogProduct, { merchantId: ctx.merchantId, ...productColumns(input) });
    await em.flush();
    return { productId: product.id };
  });
}

/** Update Product: the product's fields replaced; its skus' names follow its name. */
export async function updateProduct(ctx: MerchantContext, input: z.output<typeof updateProductInput>) {
  await inTransaction(ctx.em, async (em) => {
    const product = await findProduct(em, ctx.merchantId, input.productId);
    em.assign(product, productColumns(input));
    await em.flush();
    await executeParameterized(em, renameProductSkus, [product.id, product.name]);
  });
}

export async function getProduct(ctx: MerchantContext, productId: number): Promise<PublicProduct> {
  const product = await findProduct(ctx.em, ctx.merchantId, productId);
  const skus = await ctx.em.find(
    CatalogSku,
    { product, merchantId: ctx.merchantId },
    { orderBy: { id: 'asc' } },
  );
  return presentProduct(product, skus);
}

/** The sku's columns from its fields and its product (whose name starts the sku's). */
function skuColumns(product: CatalogProduct, fields: Omit<SkuFields, 'productId'>) {
  const [price] = fields.pricingSettings.chargePolicy.oneTimeCharge.catalogPrices;
  if (!price) throw new Error('the contract requires one catalog-price');
  const contractName = fields.contractName ?? defaultContractName;
  const policy = fields.skuQuantityPolicy;
  return {
    product,
    name: `${product.name} - ${contractName}`,
    contractName,
    status: fields.skuStatus ?? 'A',
    skuType: fields.skuType,
    currency: price.currency,
    priceMinor: toMinorUnits(price.amount, price.currency),
    image: fields.skuImage ?? null,
    allowQuantityChange: policy?.allowQuantityChange ?? true,
    minimumQuantity: policy?.minimumQuantity ?? 1,
    collectShippingAddress: fields.collectShippingAddress ?? false,
  } as const;
}

export async function createSku(ctx: MerchantContext, input: SkuFields): Promise<{ skuId: number }> {
  return inTransaction(ctx.em, async (em) => {
    const product = await findProduct(em, ctx.merchantId, input.productId, 'productId');
    const sku = em.create(CatalogSku, { merchantId: ctx.merchantId, ...skuColumns(product, input) });
    await em.flush();
    return { skuId: sku.id };
  });
}

/** Update SKU: the whole sku replaced, as the original's PUT takes it; orders placed keep their prices. */
export async function updateSku(ctx: MerchantContext, input: z.output<typeof updateSkuInput>): Promise<void> {
  await inTransaction(ctx.em, async (em) => {
    const sku = await findSku(em, ctx.merchantId, input.skuId);
    const product = await findProduct(em, ctx.merchantId, input.productId, 'productId');
    em.assign(sku, skuColumns(product, input));
    await em.flush();
  });
}

export async function getSku(ctx: MerchantContext, skuId: number): Promise<PublicSku> {
  return presentSku(await findSku(ctx.em, ctx.merchantId, skuId));
}

/** The merchant's skus among `ids` with their products, by id; ids of no sku, or of another merchant's, are absent. */
export async function findSkus(
  em: EntityManager,
  merchantId: number,
  ids: readonly number[],
): Promise<Map<number, CatalogSku>> {
  const skus = await em.find(
    CatalogSku,
    { id: { $in: [...new Set(ids)] }, merchantId },
    { populate: ['product'] },
  );
  return new Map(skus.map((sku) => [sku.id, sku]));
}

export const sampleProduct = {
  productName: 'Paywire Sample Product',
  productShortDescription: 'A product to place a first order with',
} as const satisfies ProductFields;

const samplePrice = { currency: 'EUR', amount: '10.00' } as const;

/**
 * The sandbox merchant's sample product and its sku, made once: a second start finds it by name and leaves
 * it. The merchant's row is locked meanwhile, so two launchers starting together still make one.
 */
export async function ensureSampleProduct(em: EntityManager, merchantId: number): Promise<PublicSku> {
  return inTransaction(em, async (tx) => {
    await executeParameterized(tx, lockMerchant, [merchantId]);
    const existing = await tx.findOne(
      CatalogSku,
      { merchantId, product: { name: sampleProduct.productName } },
      { orderBy: { id: 'asc' }, populate: ['product'] },
    );
    if (existing) return presentSku(existing);
    const product = tx.create(CatalogProduct, { merchantId, ...productColumns(sampleProduct) });
    const sku = tx.create(CatalogSku, {
      merchantId,
      ...skuColumns(product, {
        skuType: 'DIGITAL',
        pricingSettings: {
          chargePolicyType: oneTimePayment,
          chargePolicy: { oneTimeCharge: { catalogPrices: [{ basePrice: true, ...samplePrice }] } },
        },
      }),
    });
    await tx.flush();
    return presentSku(sku);
  });
}
