import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type { CallerScope } from '@paywire/contracts';

export const CallerCredential = defineEntity({
  name: 'CallerCredential',
  properties: {
    id: p.integer().primary().autoincrement(),
    /** The caller it belongs to ("facade", "settlement-report"); several credentials during a rotation. */
    name: p.string().length(100),
    scope: p.string().length(20).$type<CallerScope>(),
    /** The merchant a one-merchant or read-only credential is bound to. */
    merchantId: p.integer().nullable(),
    /** Hex SHA-256 of the secret's text: a 256-bit random secret needs no slow hash. */
    secretHash: p.string().length(64),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type CallerCredential = InferEntity<typeof CallerCredential>;
