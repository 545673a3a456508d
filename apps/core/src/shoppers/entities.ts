import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type { BillingContact } from '@paywire/contracts';

const optional = (length: number) => p.string().length(length).nullable();

export const Shopper = defineEntity({
  name: 'Shopper',
  properties: {
    id: p.integer().primary().autoincrement(),
    merchantId: p.integer(),
    merchantShopperId: optional(50),
    firstName: optional(100),
    lastName: optional(100),
    email: optional(200),
    country: optional(2),
    state: optional(50),
    city: optional(100),
    address: optional(200),
    address2: optional(200),
    zip: optional(20),
    phone: optional(40),
    companyName: optional(200),
    shopperCurrency: optional(3),
    softDescriptor: optional(20),
    // Batch order placement (migration 0005-orders): the rest of the shopper-contact-info and shopper-info.
    title: optional(20),
    fax: optional(40),
    storeId: optional(20),
    locale: optional(10),
    webInfo: p.json<{ ip: string; remoteHost?: string; userAgent?: string }>().nullable(),
    /** Deleted (0029-retention): its personal data and cards are gone; the row stays for its transactions. */
    deletedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Shopper = InferEntity<typeof Shopper>;

/**
 * A card in the vault: the number sealed (AES-256-GCM), the rest reduced to what responses show. A removed
 * card (0029-retention) has neither number nor fingerprint; its facts stay for the transactions that show them.
 */
export const StoredCard = defineEntity({
  name: 'StoredCard',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    shopper: () => p.manyToOne(Shopper),
    fingerprint: p.string().length(64).nullable(),
    sealedNumber: p.text().nullable(),
    brand: p.string().length(20),
    lastFour: p.string().length(4),
    expirationMonth: p.string().length(2),
    expirationYear: p.string().length(4),
    cardSubType: p.string().length(10),
    cardCategory: p.string().length(20),
    billingContact: p.json<BillingContact>().nullable(),
    removedAt: p.datetime().nullable(),
    /** Closed by its issuer (0033-account-updater): removed as above, and why. */
    closedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type StoredCard = InferEntity<typeof StoredCard>;
