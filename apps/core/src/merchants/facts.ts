import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '../db/wire.ts';
import type { FraudRules } from '../fraud/rules.ts';
import type { StoredDestination } from '../ipn/entities.ts';
import type { RoutingTable } from '../processors/accounts/routing.ts';
import { merchantFacts } from './queries.ts';

/**
 * What a call needs to know about its merchant: the clock's offset, where its IPNs go, its fraud rules, where
 * its payments may go.
 */
export interface MerchantFacts {
  offsetSeconds: number;
  ipn: { destinations: StoredDestination[]; ensureReceipt: boolean } | null;
  /** The current IPN secret, sealed (ipn/secret.ts opens it); null until the first event or read makes one. */
  ipnSecret: { id: string; sealed: string } | null;
  fraudRules: FraudRules | null;
  routing: RoutingTable;
}

/** Read once per call, in one query, then kept: one call, one notion of now, one round trip. */
export interface CallMemo {
  facts?: Promise<MerchantFacts>;
}

export interface FactsRow {
  offset: string;
  destinations: StoredDestination[] | null;
  ensure_receipt: boolean | null;
  ipn_secret: { id: string; sealed: string } | null;
  fraud_rules: FraudRules | null;
  accounts: RoutingTable['accounts'] | null;
  routes: RoutingTable['routes'] | null;
}

export function factsOf(row: FactsRow | undefined): MerchantFacts {
  return {
    offsetSeconds: Number(row?.offset ?? 0),
    ipn: row?.destinations
      ? { destinations: row.destinations, ensureReceipt: row.ensure_receipt === true }
      : null,
    ipnSecret: row?.ipn_secret ?? null,
    fraudRules: row?.fraud_rules ?? null,
    routing: { accounts: row?.accounts ?? [], routes: row?.routes ?? [] },
  };
}

export async function loadFacts(em: EntityManager, merchantId: number): Promise<MerchantFacts> {
  const [row] = await executePrepared<FactsRow>(em, merchantFacts, [merchantId]);
  return factsOf(row);
}

/**
 * The call's merchant facts, read through the caller's entity manager (inside its transaction: a second
 * pool connection per call could starve the pool) and kept for the rest of the call.
 */
export function callFacts(
  call: { merchantId: number; memo: CallMemo },
  em: EntityManager,
): Promise<MerchantFacts> {
  call.memo.facts ??= loadFacts(em, call.merchantId);
  return call.memo.facts;
}

declare module '../context.ts' {
  interface CallContext {
    /** What the call read about its merchant, kept for the rest of the call. */
    memo: CallMemo;
  }
}
