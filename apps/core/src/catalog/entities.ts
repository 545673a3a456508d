import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type { CustomParameterRequest } from '@paywire/contracts';

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
