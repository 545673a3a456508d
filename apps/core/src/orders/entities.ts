import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type { SepaBillingContact, ShopperContactInfo, SkuParameter } from '@paywire/contracts';
import { CardTransaction } from '../cards/entities.ts';
import { CatalogSku } from '../catalog/entities.ts';
import { Shopper } from '../shoppers/entities.ts';

export interface WebInfo {
  ip: string;
  remoteHost?: string;
  userAgent?: string;
}

/** An order of catalogue skus ('order' is an SQL keyword, hence the table shopper_order). */
export const ShopperOrder = defineEntity({
  name: 'ShopperOrder',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    shopper: () => p.manyToOne(Shopper),
    currency: p.string().length(3),
    totalMinor: p.bigint('number'),
    softDescriptor: p.string().length(20),
    /** The ordering shopper's web-info. */
    webInfo: p.json<WebInfo>(),
    /** When the order was placed, by the merchant's clock. */
    placedAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ShopperOrder = InferEntity<typeof ShopperOrder>;

/** A cart item: the sku's name and price as they were when the order was placed. */
export const OrderItem = defineEntity({
  name: 'OrderItem',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    order: () => p.manyToOne(ShopperOrder),
    sku: () => p.manyToOne(CatalogSku),
    skuName: p.string().length(100),
    quantity: p.integer(),
    unitMinor: p.bigint('number'),
    subTotalMinor: p.bigint('number'),
    /** The custom parameters' values given with the item, under each parameter's title as it then was (0040). */
    skuParameters: p.json<SkuParameter[]>(),
  },
});
export type OrderItem = InferEntity<typeof OrderItem>;

/**
 * The order's invoice; its financial transaction is the payment: a batch order's SEPA debit (whose status the
 * SEPA service keeps), or an Extended order's card sale (0035). Exactly one of the two is set.
 */
export const Invoice = defineEntity({
  name: 'Invoice',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    order: () => p.manyToOne(ShopperOrder).unique(),
    sepaTransactionId: p.string().length(50).nullable(),
    cardTransaction: () => p.manyToOne(CardTransaction).nullable(),
    /** The invoice contact as it was when the order was placed. */
    contact: p.json<Partial<ShopperContactInfo>>(),
    /** The billing contact of the debited account. */
    billingContact: p.json<SepaBillingContact>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Invoice = InferEntity<typeof Invoice>;
