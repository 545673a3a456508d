import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';

/** A hosted payment fields token. The bound card (number and CVV) is sealed and erased once used. */
export const PaymentFieldsToken = defineEntity({
  name: 'PaymentFieldsToken',
  properties: {
    token: p.string().length(64).primary(),
    merchantId: p.integer(),
    sealedCard: p.text().nullable(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    /** The origin of the page that first framed the token's form; no other may frame it. */
    embeddingOrigin: p.string().length(200).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type PaymentFieldsToken = InferEntity<typeof PaymentFieldsToken>;
