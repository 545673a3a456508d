import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';

export const Merchant = defineEntity({
  name: 'Merchant',
  properties: {
    id: p.integer().primary().autoincrement(),
    username: p.string().length(100).unique(),
    passwordHash: p.text(),
    /** Bumped by a trigger on every password change (0011): facades drop cached verdicts when it moves. */
    credentialsGeneration: p.bigint('number').default(1),
    /** The sandbox clock: the merchant's time is real time plus this offset. */
    clockOffsetSeconds: p.bigint('number').default(0),
    /** Signs IPN deliveries (Standard Webhooks) and makes their authKey; made on first use. */
    /** Plain IPN secrets from before 0029-retention, until core seals them into ipn_secret. */
    ipnSecret: p.string().length(64).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Merchant = InferEntity<typeof Merchant>;
