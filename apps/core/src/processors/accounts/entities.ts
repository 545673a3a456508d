import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type { CardBrand, ConnectorName, ProcessorEnvironment } from '@paywire/contracts';

/** One of a merchant's accounts at a processor (0018). */
export const ProcessorAccount = defineEntity({
  name: 'ProcessorAccount',
  properties: {
    id: p.integer().primary().autoincrement(),
    merchantId: p.integer(),
    name: p.string().length(64),
    connector: p.string().length(16).$type<ConnectorName>(),
    environment: p.string().length(4).$type<ProcessorEnvironment>(),
    merchantAccount: p.string().length(100),
    /** ISO 4217 codes; empty: any. */
    currencies: p.array(),
    /** The card vault's sealing of the account's credentials (accounts.ts); null for the sandbox. */
    sealedCredentials: p.text().nullable(),
    isDefault: p.boolean().default(false),
    enabled: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
    disabledAt: p.datetime().nullable(),
  },
});
export type ProcessorAccount = InferEntity<typeof ProcessorAccount>;

/** A routing rule: every condition set must hold for a payment to go to its account (routing.ts). */
export const ProcessorRoute = defineEntity({
  name: 'ProcessorRoute',
  properties: {
    id: p.integer().primary().autoincrement(),
    merchantId: p.integer(),
    /** 1, 2, ...: the order the rules apply in. */
    position: p.integer(),
    accountId: p.integer(),
    currency: p.string().length(3).nullable(),
    cardBrand: p.string().length(16).$type<CardBrand>().nullable(),
    minAmountMinor: p.bigint('number').nullable(),
    maxAmountMinor: p.bigint('number').nullable(),
    percent: p.integer().nullable(),
  },
});
export type ProcessorRoute = InferEntity<typeof ProcessorRoute>;
