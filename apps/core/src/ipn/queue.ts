import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryState } from '@paywire/contracts';
import { executePrepared } from '../db/wire.ts';

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

const claimed = `update ipn_delivery d
    set state = 'sending', attempts = d.attempts + 1, next_try_at = now() + $3 * interval '1 millisecond'
   from due where d.id = due.id
 returning d.id, d.merchant_id, d.destination, d.body, d.attempts, d.max_attempts, d.created_at`;

/** Due rows, oldest due first, of any destination but the excluded ones. */
const claimDue = `with due as (
  select id from ipn_delivery
   where state in ('pending', 'sending') and next_try_at <= now() and destination <> all($2::text[])
   order by next_try_at limit $1 for update skip locked)
${claimed}`;

/** Due rows of one destination (its circuit's probe). */
const claimOfDestination = `with due as (
  select id from ipn_delivery
   where state in ('pending', 'sending') and next_try_at <= now() and destination = $2
   order by next_try_at limit $1 for update skip locked)
${claimed}`;

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
  await executePrepared(
    em,
    `update ipn_delivery set next_try_at = now() + $2 * interval '1 millisecond'
      where id = any($1::bigint[]) and state = 'sending'`,
    [ids, leaseMs],
  );
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
  await executePrepared(
    em,
    `update ipn_delivery d
        set state = o.state,
            attempts = d.attempts - o.released::int,
            last_status = case when o.released then d.last_status else o.status end,
            last_error = case when o.released then d.last_error else o.error end,
            next_try_at = o.next_try_at,
            delivered_at = o.delivered_at
       from unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::timestamptz[], $6::timestamptz[],
                   $7::boolean[]) as o(id, state, status, error, next_try_at, delivered_at, released)
      where d.id = o.id and d.state in ('pending', 'sending')`,
    Object.values(columns),
  );
}
