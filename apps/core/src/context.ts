import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { IdempotentRequest } from '@paywire/contracts';
import type { Logger, TraceContext } from '@paywire/observability';
import type { PgBoss } from 'pg-boss';
import type { Caller } from './callers/service.ts';
import type { IpCountryLocator } from './fraud/ip-country.ts';
import type { DeliverySettings } from './ipn/delivery.ts';
import type { KeyServices } from './keys/reencrypt.ts';
import type { PayoutSettings } from './marketplace/payout-bank.ts';
import type { CallMemo } from './merchants/facts.ts';
import type { ProcessorDirectory } from './processors/directory.ts';
import type { CardProfiler } from './processors/processor.ts';
import type { RetentionSettings } from './retention/sweep.ts';
import type { AuditOrigin } from './security/audit/trail.ts';
import type { CardVault } from './security/card-vault.ts';
import type { PasswordGate } from './security/password-gate.ts';
import type { ScryptCost } from './security/passwords.ts';
import type { SepaSettings } from './sepa/bank.ts';
import type { ApplePayGateway } from './wallets/apple-pay-gateway.ts';
import type { WalletTrust } from './wallets/keys.ts';

export type Mode = 'sandbox' | 'live';

/** What every procedure may use. Built once at start; no global singletons. */
export interface CoreServices {
  orm: MikroORM;
  /** Where payments go: the merchant's processor accounts, routing and their connectors (payments/ only). */
  processors: ProcessorDirectory;
  /** The card's issuer range, without a processor call. */
  cardProfile: CardProfiler;
  /** The country of a shopper's IP address, for the fraud rules (fraud/ip-country.ts). */
  ipCountry: IpCountryLocator;
  vault: CardVault;
  /** The roots production wallet tokens are verified against (Google's root signing keys, Apple's root). */
  walletTrust: WalletTrust;
  /** Apple's merchant validation, for Apple Pay on the web sessions (wallets/onboarding.ts). */
  applePay: ApplePayGateway;
  /** The key provider and the data keys: refresh, rotation's re-encryption job (keys/). */
  keys: KeyServices;
  /** Bounds the password hashes running and waiting, so guessing cannot starve real logins. */
  passwords: PasswordGate;
  /** What merchant passwords are hashed at: security/passwords.ts's productionCost outside tests. */
  passwordCost: ScryptCost;
  mode: Mode;
  jobs: PgBoss;
  ipn: DeliverySettings;
  sepa: SepaSettings;
  /** Who pays vendors, from which account (marketplace/payouts.ts). */
  payouts: PayoutSettings;
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
  /** How long operational data lives before the retention sweep erases it (retention/sweep.ts). */
  retention: RetentionSettings;
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
  /** What the call read about its merchant, kept for the rest of the call. */
  memo: CallMemo;
  /**
   * A keyed mutation run in phases (idempotency/middleware.ts): its key is claimed in a committed record, and
   * the procedure writes its answer to that record in the same transaction as its last writes.
   */
  keyed?: KeyedCall;
  /** The facade request this call serves (X-Request-Id), kept with the IPN deliveries it causes. */
  requestId?: string;
  /** Who made the call and from where, for the audit trail (a worker's job has none). */
  origin?: AuditOrigin;
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
  caller: Caller;
  origin: AuditOrigin;
  /** Core's logger for this call: every line names the request id. */
  log: Logger;
  /** The caller's trace context (traceparent), when tracing is on. */
  traceParent?: TraceContext | undefined;
}
