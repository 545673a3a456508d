import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { IdempotentRequest } from '@paywire/contracts';
import type { Logger, TraceContext } from '@paywire/observability';
import type { PgBoss } from 'pg-boss';

export type Mode = 'sandbox' | 'live';

/**
 * What every procedure may use. Built once at start (server.ts, the composition root); no global singletons.
 * This module names no capability: each capability adds the services it owns to this interface, and to
 * CallContext and RequestContext what a call carries for it, from its own module (TypeScript's declaration
 * merging: `declare module '../context.ts'`; find them all with `grep -rn "interface CoreServices"`).
 */
export interface CoreServices {
  orm: MikroORM;
  mode: Mode;
  jobs: PgBoss;
  /** Attempts without an outcome older than this are resolved by the recovery worker (payments/recovery.ts). */
  payments: { recoveryAfterSeconds: number };
  /**
   * After a merchant's card sale, in its transaction: opens the sandbox's rehearsal chargeback when the sale
   * paid with the dispute test card (chargebacks/sandbox-card.ts). Given at the composition root, so cards
   * need not know chargebacks.
   */
  afterCardSale?: (
    ctx: MerchantContext,
    em: EntityManager,
    sale: { transactionId: number; cardLastFour: string | undefined },
  ) => Promise<void>;
  /**
   * After a card refund the processor confirmed later (its notification), in that transaction: cancels the
   * refunded charge's subscription (refunds/service.ts). Given at the composition root, so processors need not
   * know refunds or recurring.
   */
  afterRefundDone?: (ctx: MerchantContext, em: EntityManager, paymentId: number) => Promise<void>;
}

/**
 * One call (or a worker's job): its own entity manager, and the merchant it acts for (the one an
 * any-merchant caller named, a bound credential's own; null when none).
 */
export interface CallContext extends CoreServices {
  em: EntityManager;
  merchantId: number | null;
  /** Set when the caller sent an idempotency key with a mutation. */
  idempotency: IdempotentRequest | null;
  /**
   * A keyed mutation run in phases (idempotency/middleware.ts): its key is claimed in a committed record, and
   * the procedure writes its answer to that record in the same transaction as its last writes.
   */
  keyed?: KeyedCall;
  /** The facade request this call serves (X-Request-Id), kept with the IPN deliveries it causes. */
  requestId?: string;
}

export interface KeyedCall {
  key: string;
  /** Records a success as the key's answer; call it inside the transaction that commits the work. */
  record(em: EntityManager, data: unknown): Promise<void>;
}

export interface MerchantContext extends CallContext {
  merchantId: number;
}

/** A call over tRPC: also who made it, as its credential proved (server.ts). */
export interface RequestContext extends CallContext {
  /** Core's logger for this call: every line names the request id. */
  log: Logger;
  /** The caller's trace context (traceparent), when tracing is on. */
  traceParent?: TraceContext | undefined;
}
