import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type { CustomParameterRequest, ProductStatus, SkuStatus, SkuType } from '@paywire/contracts';

/** A product of the merchant's catalogue (product.xsd); its skus carry the prices. */
export const CatalogProduct = defineEntity({
  name: 'CatalogProduct',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    status: p.string().length(1).$type<ProductStatus>(),
    name: p.string().length(100),
    shortDescription: p.string().length(500),
    longDescription: p.string().length(4000).nullable(),
    infoUrl: p.string().length(500).nullable(),
    image: p.string().length(500).nullable(),
    merchantDescriptor: p.string().length(20).nullable(),
    supportEmail: p.string().length(100).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type CatalogProduct = InferEntity<typeof CatalogProduct>;

/**
 * A sku (catalog-sku.xsd): what a cart names, with one one-time price in one currency (minor units). Its
 * name is "{product name} - {contract name}", kept with the product's name.
 */
export const CatalogSku = defineEntity({
  name: 'CatalogSku',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    product: () => p.manyToOne(CatalogProduct),
    name: p.string().length(203),
    contractName: p.string().length(100),
    status: p.string().length(1).$type<SkuStatus>(),
    skuType: p.string().length(8).$type<SkuType>(),
    currency: p.string().length(3),
    priceMinor: p.bigint('number'),
    image: p.string().length(500).nullable(),
    allowQuantityChange: p.boolean(),
    minimumQuantity: p.integer(),
    collectShippingAddress: p.boolean(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type CatalogSku = InferEntity<typeof CatalogSku>;

/** A custom parameter (0035): a checkout field of the merchant's, with its type's settings as sent. */
export const CustomParameter = defineEntity({
  name: 'CustomParameter',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    title: p.string().length(100),
    active: p.boolean(),
    mandatory: p.boolean(),
    settings: p.json<CustomParameterRequest['customParamSettings']>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type CustomParameter = InferEntity<typeof CustomParameter>;
