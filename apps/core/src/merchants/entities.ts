import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';

export const Merchant = defineEntity({
  name: 'Merchant',
  properties: {
    id: p.integer().primary().autoincrement(),
    username: p.string().length(100).unique(),
    passwordHash: p.text(),
    /** The sandbox clock: the merchant's time is real time plus this offset. */
    clockOffsetSeconds: p.bigint('number').default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Merchant = InferEntity<typeof Merchant>;
