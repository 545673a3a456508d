import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryState } from '@paywire/contracts';
import { executePrepared } from '../db/wire.ts';
import { claimDue, claimOfDestination, extendLeases, recordOutcomes } from './queries.ts';

/**
 * The queue of IPN deliveries is their own rows: a pending row is due once its next_try_at has passed.
 * Claiming a row counts its attempt, makes it 'sending' and moves next_try_at forward by the lease, which
 * its core renews while it holds the row; a core that dies stops renewing, and the row is due again a
 * lease later.
 */

export interface ClaimedDelivery {
  id: number;
  merchantId: number;
  destination: string;
  body: string;
  /** This attempt included. */
  attempts: number;
  maxAttempts: number;
  /** When the event was recorded: a delivery's lag is counted from here. */
  createdAt: Date;
}

/** What an attempt left: its row's new state, or a release (not sent: the attempt is not counted). */
export type Outcome =
  | {
      id: number;
      state: DeliveryState;
      status: number | null;
      error: string | null;
      nextTryAt: Date | null;
      deliveredAt: Date | null;
    }
  | { id: number; release: Date };

interface ClaimedRow {
  id: string;
  merchant_id: number;
  destination: string;
  body: string;
  attempts: number;
  max_attempts: number;
  created_at: Date | string;
}

const toClaimed = (rows: ClaimedRow[]): ClaimedDelivery[] =>
  rows
    .map((row) => ({
      id: Number(row.id),
      merchantId: row.merchant_id,
      destination: row.destination,
      body: row.body,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
      createdAt: new Date(row.created_at),
    }))
    .sort((a, b) => a.id - b.id);

export async function claimDeliveries(
  em: EntityManager,
  limit: number,
  leaseMs: number,
  excluded: string[],
): Promise<ClaimedDelivery[]> {
  return toClaimed(await executePrepared<ClaimedRow>(em, claimDue, [limit, excluded, leaseMs]));
}

export async function claimDestination(
  em: EntityManager,
  limit: number,
  leaseMs: number,
  destination: string,
): Promise<ClaimedDelivery[]> {
  return toClaimed(await executePrepared<ClaimedRow>(em, claimOfDestination, [limit, destination, leaseMs]));
}

/** Keeps the rows this core holds from being claimed by another. */
export async function renewLeases(em: EntityManager, ids: number[], leaseMs: number): Promise<void> {
  if (ids.length === 0) return;
  await executePrepared(em, extendLeases, [ids, leaseMs]);
}

/**
 * Every outcome of a batch in one statement. A row already delivered or failed (by another core that
 * claimed it after a lapsed lease) is left as it is.
 */
export async function writeOutcomes(em: EntityManager, outcomes: Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const columns = {
    id: [] as number[],
    state: [] as string[],
    status: [] as (number | null)[],
    error: [] as (string | null)[],
    nextTryAt: [] as (Date | null)[],
    deliveredAt: [] as (Date | null)[],
    released: [] as boolean[],
  };
  for (const outcome of outcomes) {
    const released = 'release' in outcome;
    columns.id.push(outcome.id);
    columns.state.push(released ? 'pending' : outcome.state);
    columns.status.push(released ? null : outcome.status);
    columns.error.push(released ? null : outcome.error);
    columns.nextTryAt.push(released ? outcome.release : outcome.nextTryAt);
    columns.deliveredAt.push(released ? null : outcome.deliveredAt);
    columns.released.push(released);
  }
  await executePrepared(em, recordOutcomes, Object.values(columns));
}
