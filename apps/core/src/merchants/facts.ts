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

/** A merchant's facts as read at a version of them (migration 0046: every change to them replaces it). */
export interface VersionedFacts {
  version: string;
  facts: MerchantFacts;
}

/**
 * The facts this core last read of each merchant, kept across calls (the most recently read merchants, up to
 * a limit). Nothing is read from here as current: a sale may start from them because its attempt's statement
 * writes only while their version is still the merchant's (cards/sale.ts), and what it refused on them is
 * asked again of the facts read afresh.
 */
export class LastKnownFacts {
  readonly #byMerchant = new Map<number, VersionedFacts>();
  readonly #limit: number;

  constructor(limit = 10_000) {
    this.#limit = limit;
  }

  of(merchantId: number): VersionedFacts | undefined {
    return this.#byMerchant.get(merchantId);
  }

  remember(merchantId: number, known: VersionedFacts): void {
    this.#byMerchant.delete(merchantId);
    this.#byMerchant.set(merchantId, known);
    if (this.#byMerchant.size > this.#limit) {
      const [oldest] = this.#byMerchant.keys();
      if (oldest !== undefined) this.#byMerchant.delete(oldest);
    }
  }
}

/** Reads a merchant's facts, and remembers them with their version when given where. */
export async function loadFacts(
  em: EntityManager,
  merchantId: number,
  lastKnown?: LastKnownFacts,
): Promise<MerchantFacts> {
  const [row] = await executePrepared<FactsRow & { facts_version: string }>(em, merchantFacts, [merchantId]);
  const facts = factsOf(row);
  if (row && lastKnown) lastKnown.remember(merchantId, { version: row.facts_version, facts });
  return facts;
}

/**
 * The call's merchant facts, read through the caller's entity manager (inside its transaction: a second
 * pool connection per call could starve the pool) and kept for the rest of the call.
 */
export function callFacts(
  call: { merchantId: number; memo: CallMemo; lastKnownFacts: LastKnownFacts },
  em: EntityManager,
): Promise<MerchantFacts> {
  call.memo.facts ??= loadFacts(em, call.merchantId, call.lastKnownFacts);
  return call.memo.facts;
}

declare module '../context.ts' {
  interface CoreServices {
    lastKnownFacts: LastKnownFacts;
  }
  interface CallContext {
    /** What the call read about its merchant, kept for the rest of the call. */
    memo: CallMemo;
  }
}
