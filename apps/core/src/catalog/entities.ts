import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';

/** A product of the merchant's catalogue; its skus carry the prices. */
export const CatalogProduct = defineEntity({
  name: 'CatalogProduct',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    name: p.string().length(100),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type CatalogProduct = InferEntity<typeof CatalogProduct>;

/** A sku: what a cart names, with one price in one currency (minor units). */
export const CatalogSku = defineEntity({
  name: 'CatalogSku',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    product: () => p.manyToOne(CatalogProduct),
    name: p.string().length(100),
    currency: p.string().length(3),
    priceMinor: p.bigint('number'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type CatalogSku = InferEntity<typeof CatalogSku>;
