import type { EntityManager } from '@mikro-orm/postgresql';
import { type IpnEvent, type SendFlag, type SepaStatus, sendFlagOf } from '@paywire/contracts';
import type { CoreServices, MerchantContext } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import type { StoredDestination } from '../ipn/entities.ts';
import { type EventParameters, recordEvent } from '../ipn/events.ts';
import { kickSettlement, settlementQueue, settlementRun } from '../jobs/queues.ts';
import { sepaSettlements } from '../metrics.ts';
import type { BankOutcome } from './entities.ts';
import { applyTransitions, dueDebits, insertReturns, ipnDestinationsOf } from './queries.ts';
import { mandateEventParameters, nextStepAt, sepaEventParameters } from './service.ts';

/**
 * Settlement: the bank's answers, applied when they are due by each merchant's clock. One pg-boss job runs
 * at a time (a `stately` queue: one active, at most one queued), every minute and whenever a sandbox clock
 * moves; it drains every due debit in batches over a few lanes, each batch one transaction that takes its
 * rows with FOR UPDATE SKIP LOCKED, so lanes never collide and a debit being refunded is left for later.
 */
export interface SettlementOptions {
  /** Debits per transaction. */
  batchSize?: number;
  /** Batches in flight at once. */
  lanes?: number;
  /**
   * Of collected debits (id, when collected), those another capability opened as its recurring charges,
   * with their Recurring parameters: they report Recurring instead of Charge. Given by whoever starts the
   * workers (workers.ts: recurring's renewals), so sepa does not know who charges it.
   */
  recurringDebits?: RecurringDebits;
}

export type RecurringDebits = (
  em: EntityManager,
  debits: { id: string; settledAt: Date }[],
) => Promise<Map<string, EventParameters>>;

const noRecurringDebits: RecurringDebits = async () => new Map();

interface DueRow {
  id: string;
  merchant_id: number;
  merchant_transaction_id: string | null;
  shopper_id: number;
  status: SepaStatus;
  outcome: BankOutcome;
  currency: string;
  amount_minor: string;
  refunded_minor: string;
  payer_first_name: string;
  payer_last_name: string;
  next_action_at: Date;
  merchant_now: Date;
  reference: string;
  accepted_at: Date;
  iban_first_four: string;
  iban_last_four: string;
}

interface Transition {
  row: DueRow;
  status: SepaStatus;
  nextActionAt: Date | null;
  refundMinor: number;
  /** None when the row had nothing due after all: its next action is only cleared. */
  event: IpnEvent | null;
  eventAmountMinor: number;
}

/** What the bank's answer does to a due debit. */
function transitionOf(services: CoreServices, row: DueRow): Transition {
  const amountMinor = Number(row.amount_minor);
  if (row.status === 'PENDING') {
    if (row.outcome === 'FAIL') {
      return {
        row,
        status: 'FAIL',
        nextActionAt: null,
        refundMinor: 0,
        event: 'Decline',
        eventAmountMinor: amountMinor,
      };
    }
    // The return of a returned debit is due one step after its collection was due.
    const nextActionAt =
      row.outcome === 'SUCCESS_THEN_RETURN' ? nextStepAt(services, new Date(row.next_action_at)) : null;
    return {
      row,
      status: 'SUCCESS',
      nextActionAt,
      refundMinor: 0,
      event: 'Charge',
      eventAmountMinor: amountMinor,
    };
  }
  if (row.status !== 'SUCCESS' || row.outcome !== 'SUCCESS_THEN_RETURN') {
    return { row, status: row.status, nextActionAt: null, refundMinor: 0, event: null, eventAmountMinor: 0 };
  }
  // A collected debit the bank returns: whatever the merchant has not refunded yet goes back.
  const balance = amountMinor - Number(row.refunded_minor);
  return {
    row,
    status: 'REFUNDED',
    nextActionAt: null,
    refundMinor: balance,
    event: 'Refund',
    eventAmountMinor: balance,
  };
}

/**
 * The send flags each merchant of the batch has on: one query for the batch, so recordEvent (which checks
 * again) is only called for events some destination wants, not once per debit to find nobody listening.
 */
async function eventsListenedTo(
  tx: EntityManager,
  transitions: Transition[],
): Promise<Map<number, Set<SendFlag>>> {
  const merchantIds = [...new Set(transitions.map((t) => t.row.merchant_id))];
  const rows = await executeParameterized<{ merchant_id: number; destinations: StoredDestination[] }>(
    tx,
    ipnDestinationsOf,
    [JSON.stringify(merchantIds)],
  );
  return new Map(
    rows.map((row) => [
      row.merchant_id,
      new Set(row.destinations.flatMap((destination) => destination.enabled)),
    ]),
  );
}

function workerContext(services: CoreServices, em: EntityManager, merchantId: number): MerchantContext {
  return { ...services, em, merchantId, idempotency: null, memo: {} };
}

/**
 * Settles up to `limit` due debits in one transaction; returns how many. Merchants are visited in turn and
 * each one's due debits read through the partial index on (merchant_id, next_action_at).
 */
export async function settleBatch(
  services: CoreServices,
  limit: number,
  recurringDebits: RecurringDebits = noRecurringDebits,
): Promise<number> {
  const em = services.orm.em.fork();
  const reached: string[] = [];
  const settled = await em.transactional(async (tx) => {
    const rows = await executeParameterized<DueRow>(
      tx,
      dueDebits,
      // Core's clock, as everywhere in the domain (due times were written from it), not the database's.
      [new Date(), services.mode === 'live', limit, limit],
    );
    if (rows.length === 0) return 0;
    const transitions = rows.map((row) => transitionOf(services, row));
    // One JSON parameter per statement: the driver would spread a JS array into a list of parameters.
    await executeParameterized(tx, applyTransitions, [
      JSON.stringify(
        transitions.map((t) => ({
          id: t.row.id,
          merchant_id: t.row.merchant_id,
          status: t.status,
          next_action_at: t.nextActionAt,
          refund_minor: t.refundMinor,
          merchant_now: t.row.merchant_now,
        })),
      ),
    ]);
    const returned = transitions.filter((t) => t.refundMinor > 0);
    if (returned.length > 0) {
      await executeParameterized(tx, insertReturns, [
        JSON.stringify(
          returned.map((t) => ({
            merchant_id: t.row.merchant_id,
            debit_id: t.row.id,
            amount_minor: t.refundMinor,
          })),
        ),
      ]);
    }
    const listening = await eventsListenedTo(tx, transitions);
    // A subscription's renewal debit reports Recurring, with its subscription's parameters, not Charge.
    const renewals = await recurringDebits(
      tx,
      transitions
        .filter((t) => t.event === 'Charge')
        .map((t) => ({ id: String(t.row.id), settledAt: new Date(t.row.merchant_now) })),
    );
    const contexts = new Map<number, MerchantContext>();
    for (const transition of transitions) {
      const { row, eventAmountMinor } = transition;
      const renewal = renewals.get(String(row.id));
      const event = renewal ? 'Recurring' : transition.event;
      if (event === null || !listening.get(row.merchant_id)?.has(sendFlagOf(event))) continue;
      const ctx = contexts.get(row.merchant_id) ?? workerContext(services, tx, row.merchant_id);
      contexts.set(row.merchant_id, ctx);
      const debit = {
        id: Number(row.id),
        merchantTransactionId: row.merchant_transaction_id,
        shopperId: row.shopper_id,
        payerFirstName: row.payer_first_name,
        payerLastName: row.payer_last_name,
        currency: row.currency,
      };
      const mandate = {
        reference: row.reference,
        acceptedAt: new Date(row.accepted_at),
        ibanFirstFour: row.iban_first_four,
        ibanLastFour: row.iban_last_four,
      };
      await recordEvent(ctx, tx, event, {
        ...sepaEventParameters(debit, mandate, eventAmountMinor, new Date(row.merchant_now)),
        ...(transition.event === 'Charge' ? mandateEventParameters(mandate) : {}),
        ...renewal,
      });
    }
    reached.push(...transitions.filter((t) => t.status !== t.row.status).map((t) => t.status));
    return rows.length;
  });
  for (const outcome of reached) sepaSettlements.inc({ outcome }); // counted once committed
  return settled;
}

/** Drains every due debit: lanes run batches until one finds nothing due. Returns how many were settled. */
export async function settleDue(services: CoreServices, options: SettlementOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const lanes = options.lanes ?? 3;
  let settled = 0;
  let failed = false;
  // Every lane stops before the run ends, failed or not: a lane still working must not overlap the next run.
  const outcomes = await Promise.allSettled(
    Array.from({ length: lanes }, async () => {
      while (!failed) {
        const count = await settleBatch(services, batchSize, options.recurringDebits).catch(
          (error: unknown) => {
            failed = true;
            throw error;
          },
        );
        settled += count;
        if (count === 0) return; // a short batch may have made new steps due (a return after its collection)
      }
    }),
  );
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return settled;
}

export async function startSettlementWorkers(
  services: CoreServices,
  onError: (error: unknown) => void,
  options: SettlementOptions = {},
): Promise<void> {
  const { jobs } = services;
  await jobs.createQueue(settlementQueue, { policy: 'stately', expireInSeconds: 600, retryLimit: 0 });
  await jobs.schedule(settlementQueue, '* * * * *', {}, settlementRun);
  await kickSettlement(jobs); // at once, not at the next minute: catches up what a stopped core left due
  await jobs.work(settlementQueue, { pollingIntervalSeconds: 1 }, async () => {
    try {
      await settleDue(services, options);
    } catch (error) {
      onError(error);
      throw error;
    }
  });
}
