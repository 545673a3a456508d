import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type { ErrorBody } from '@paywire/contracts';

/** What a keyed call answered: replayed as is while the record lives. */
export type StoredOutcome = { ok: true; data: unknown } | { ok: false; body: ErrorBody };

export const IdempotencyRecord = defineEntity({
  name: 'IdempotencyRecord',
  properties: {
    merchantId: p.integer().primary(),
    key: p.string().length(64).primary(),
    /** A keyed hash of the request (middleware.ts); null on records older than keyed fingerprints (0011). */
    fingerprint: p.string().length(64).nullable(),
    procedure: p.string().length(100),
    /** JSON text of a StoredOutcome, byte for byte as first answered; null while a phased call is in flight (0014). */
    outcome: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** By the merchant's clock, like everything time-based. */
    expiresAt: p.datetime(),
  },
});
export type IdempotencyRecord = InferEntity<typeof IdempotencyRecord>;
