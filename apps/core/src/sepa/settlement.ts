import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type EcpAccountType,
  type IpnEvent,
  type SendFlag,
  type SepaStatus,
  sendFlagOf,
} from '@paywire/contracts';
import { type AchEntry, nachaFile } from '../ach/nacha.ts';
import type { CoreServices } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import type { StoredDestination } from '../ipn/entities.ts';
import { type EventParameters, recordEvent } from '../ipn/events.ts';
import { workerContextPerMerchant } from '../jobs/context.ts';
import { runLanes } from '../jobs/lanes.ts';
import { settlementQueue, startRuns } from '../jobs/queues.ts';
import { refundWholeSplits } from '../marketplace/refunds.ts';
import { sepaSettlements } from '../metrics.ts';
import { type PaymentOperation, runPrepared } from '../payments/pipeline.ts';
import { bindings } from '../security/card-vault.ts';
import { nextStepAt } from './debits.ts';
import type { BankAnswer, BankOutcome, DebitCurrency, DebitScheme } from './entities.ts';
import { mandateEventParameters, sepaEventParameters } from './events.ts';
import {
  applyTransitions,
  claimDueDebits,
  insertReturns,
  ipnDestinationsOf,
  lockPresented,
} from './queries.ts';

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

/**
 * A debit claimed for this run, with what the bank is given to collect it: a SEPA debit's IBAN, or an ACH
 * debit's account number (sealed in the same column), routing number and account type.
 */
interface ClaimedRow {
  id: string;
  merchant_id: number;
  status: SepaStatus;
  outcome: BankOutcome | null;
  currency: DebitCurrency;
  amount_minor: string;
  payer_first_name: string;
  payer_last_name: string;
  presenting_until: string;
  merchant_now: Date;
  sealed_iban: string;
  iban_fingerprint: string;
  scheme: DebitScheme;
  routing_number: string | null;
  account_type: EcpAccountType | null;
}

/** A claimed debit as the record phase finds it, locked. */
interface DueRow {
  id: string;
  merchant_id: number;
  merchant_transaction_id: string | null;
  shopper_id: number;
  status: SepaStatus;
  outcome: BankOutcome | null;
  currency: string;
  amount_minor: string;
  refunded_minor: string;
  payer_first_name: string;
  payer_last_name: string;
  next_action_at: Date;
  reference: string;
  accepted_at: Date;
  iban_first_four: string;
  iban_last_four: string;
  scheme: DebitScheme;
  account_type: EcpAccountType | null;
  return_code: string | null;
}

interface Transition {
  row: DueRow;
  merchantNow: Date;
  status: SepaStatus;
  outcome: BankOutcome | null;
  /** The return code the bank answered with the outcome (kept once written). */
  returnCode: string | null;
  nextActionAt: Date | null;
  refundMinor: number;
  /** False when the bank gave no answer for the debit: it stays due, for the next run. */
  settled: boolean;
  /** None when the row had nothing due after all: its next action is only cleared. */
  event: IpnEvent | null;
  eventAmountMinor: number;
}

/** What the bank's answer (given now, or at the debit's presentation) does to a due debit. */
function transitionOf(
  services: CoreServices,
  row: DueRow,
  merchantNow: Date,
  answer: BankAnswer | undefined,
): Transition {
  const amountMinor = Number(row.amount_minor);
  const outcome = row.outcome ?? answer?.outcome ?? null;
  const returnCode = row.return_code ?? answer?.returnCode ?? null;
  const base = { row, merchantNow, outcome, returnCode, refundMinor: 0, settled: true };
  if (row.status === 'PENDING') {
    if (outcome === null) {
      return {
        ...base,
        status: row.status,
        nextActionAt: row.next_action_at,
        settled: false,
        event: null,
        eventAmountMinor: 0,
      };
    }
    if (outcome === 'FAIL') {
      return { ...base, status: 'FAIL', nextActionAt: null, event: 'Decline', eventAmountMinor: amountMinor };
    }
    // The return of a returned debit is due one step after its collection was due.
    const nextActionAt =
      outcome === 'SUCCESS_THEN_RETURN'
        ? nextStepAt(services, new Date(row.next_action_at), row.scheme)
        : null;
    return { ...base, status: 'SUCCESS', nextActionAt, event: 'Charge', eventAmountMinor: amountMinor };
  }
  if (row.status !== 'SUCCESS' || outcome !== 'SUCCESS_THEN_RETURN') {
    return { ...base, status: row.status, nextActionAt: null, event: null, eventAmountMinor: 0 };
  }
  // A collected debit the bank returns: whatever the merchant has not refunded yet goes back.
  const balance = amountMinor - Number(row.refunded_minor);
  return {
    ...base,
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

function achEntry(row: ClaimedRow, accountNumber: string): AchEntry {
  return {
    reference: String(row.id),
    merchantId: row.merchant_id,
    routingNumber: row.routing_number ?? '',
    accountNumber,
    accountType: row.account_type ?? 'CONSUMER_CHECKING',
    amountMinor: Number(row.amount_minor),
    name: `${row.payer_first_name} ${row.payer_last_name}`,
    effectiveOn: new Date(row.merchant_now),
  };
}

interface SettlementContext extends CoreServices {
  em: EntityManager;
}

/**
 * Settlement as a payment operation (payments/pipeline.ts), one batch of due debits across merchants:
 * - prepare: claim up to `limit` due debits (each merchant's due ones through the partial index on
 *   (merchant_id, next_action_at)) by leasing them, committed;
 * - call: present to the bank those it has not answered yet, outside any transaction;
 * - record: lock the debits still leased to this run, apply each one's answer (collected, failed, returned),
 *   insert the returns and send the events, in one transaction.
 * A run that dies between call and record leaves its debits leased; the next run after the lease presents
 * them again, and the bank answers the same for a reference it has seen (sepa/bank.ts).
 */
function settlementOperation(
  services: CoreServices,
  limit: number,
  recurringDebits: RecurringDebits,
): PaymentOperation<ClaimedRow[], Map<string, BankAnswer>, Transition[], SettlementContext> {
  return {
    // One statement, yet in a transaction of its own: its COMMIT is sent only once the claim's answer has
    // reached core, so a core killed while the claim waits (on a lock, say) leaves no lease behind. Autocommitted,
    // the orphaned statement would commit the lease when it ran, and the debits would wait out the lease.
    prepare: ({ em }) =>
      inTransaction(em, (tx) =>
        executeParameterized<ClaimedRow>(tx, claimDueDebits, [
          // Core's clock, as everywhere in the domain (due times were written from it), not the database's.
          new Date(),
          services.mode === 'live',
          limit,
          limit,
          // How long the run holds its debits while it asks the bank: the payments' recovery delay, as for
          // renewal leases (a bank answers within it). A run that died, or lost its database, loses them after
          // it, and the next run presents them again: a longer lease would hold them past the next run.
          services.payments.recoveryAfterSeconds,
        ]),
      ),
    // SEPA debits go to the SEPA bank; ACH debits leave in one NACHA file for the run, to the ACH bank.
    async call(_ctx, claimed) {
      const unanswered = claimed.filter((row) => row.status === 'PENDING' && row.outcome === null);
      const accountOf = (row: ClaimedRow) =>
        services.vault.open(row.sealed_iban, bindings.mandate(row.merchant_id, row.iban_fingerprint));
      const sepa = unanswered.filter((row) => row.scheme === 'SEPA');
      const ach = unanswered.filter((row) => row.scheme === 'ACH');
      const [sepaOutcomes, achAnswers] = await Promise.all([
        sepa.length === 0
          ? new Map<string, BankOutcome>()
          : services.sepa.bank.collect(
              sepa.map((row) => ({
                reference: String(row.id),
                iban: accountOf(row),
                amountMinor: Number(row.amount_minor),
                currency: 'EUR' as const,
              })),
            ),
        ach.length === 0
          ? new Map<string, BankAnswer>()
          : services.sepa.ach.bank.submit(
              nachaFile(
                services.sepa.ach.originator,
                ach.map((row): AchEntry => achEntry(row, accountOf(row))),
              ),
            ),
      ]);
      const sepaAnswers = [...sepaOutcomes].map(([id, outcome]): [string, BankAnswer] => [id, { outcome }]);
      return new Map([...sepaAnswers, ...achAnswers]);
    },
    async record(tx, claimed, answers) {
      const merchantNow = new Map(claimed.map((row) => [String(row.id), new Date(row.merchant_now)]));
      const rows = await executeParameterized<DueRow>(tx, lockPresented, [
        JSON.stringify(claimed.map((row) => ({ id: row.id, presenting_until: row.presenting_until }))),
      ]);
      const transitions = rows.map((row) =>
        transitionOf(
          services,
          row,
          merchantNow.get(String(row.id)) ?? new Date(),
          answers.get(String(row.id)),
        ),
      );
      if (transitions.length > 0) await applyAnswers(services, tx, transitions, recurringDebits);
      return transitions;
    },
  };
}

/** The record phase's writes: the debits moved on, the returns, and the events someone listens to. */
async function applyAnswers(
  services: CoreServices,
  tx: EntityManager,
  transitions: Transition[],
  recurringDebits: RecurringDebits,
): Promise<void> {
  // One JSON parameter per statement: the driver would spread a JS array into a list of parameters.
  await executeParameterized(tx, applyTransitions, [
    JSON.stringify(
      transitions.map((t) => ({
        id: t.row.id,
        merchant_id: t.row.merchant_id,
        status: t.status,
        outcome: t.outcome,
        return_code: t.returnCode,
        next_action_at: t.nextActionAt,
        refund_minor: t.refundMinor,
        merchant_now: t.merchantNow,
        settled: t.settled,
      })),
    ),
  ]);
  const returned = transitions.filter((t) => t.refundMinor > 0);
  if (returned.length > 0) {
    const returns = await executeParameterized<{ id: number; debit_id: number }>(tx, insertReturns, [
      JSON.stringify(
        returned.map((t) => ({
          merchant_id: t.row.merchant_id,
          debit_id: t.row.id,
          amount_minor: t.refundMinor,
        })),
      ),
    ]);
    // A returned debit gives back every vendor's share left: it pays no vendor.
    await refundWholeSplits(
      tx,
      returns.map((r) => ({ refundId: r.id, transactionId: r.debit_id })),
    );
  }
  const listening = await eventsListenedTo(tx, transitions);
  // A subscription's renewal debit reports Recurring, with its subscription's parameters, not Charge.
  const renewals = await recurringDebits(
    tx,
    transitions
      .filter((t) => t.event === 'Charge')
      .map((t) => ({ id: String(t.row.id), settledAt: t.merchantNow })),
  );
  const contextOf = workerContextPerMerchant(services, tx);
  for (const transition of transitions) {
    const { row, eventAmountMinor } = transition;
    const renewal = renewals.get(String(row.id));
    const event = renewal ? 'Recurring' : transition.event;
    if (event === null || !listening.get(row.merchant_id)?.has(sendFlagOf(event))) continue;
    const ctx = contextOf(row.merchant_id);
    const debit = {
      id: Number(row.id),
      merchantTransactionId: row.merchant_transaction_id,
      shopperId: row.shopper_id,
      payerFirstName: row.payer_first_name,
      payerLastName: row.payer_last_name,
      currency: row.currency,
    };
    const mandate = {
      scheme: row.scheme,
      accountType: row.account_type,
      reference: row.reference,
      acceptedAt: new Date(row.accepted_at),
      ibanFirstFour: row.iban_first_four,
      ibanLastFour: row.iban_last_four,
    };
    await recordEvent(ctx, tx, event, {
      ...sepaEventParameters(debit, mandate, eventAmountMinor, transition.merchantNow),
      ...(transition.event === 'Charge' && row.scheme === 'SEPA' ? mandateEventParameters(mandate) : {}),
      ...returnParameters(transition),
      ...renewal,
    });
  }
}

/**
 * A failed or returned ACH debit's return code, as the reference's Decline IPN carries it (docs/ach.md,
 * Returns): `declineReason` on a Decline, `reversalReason` on the Refund of a return.
 */
function returnParameters(transition: Transition): EventParameters {
  if (transition.returnCode === null) return {};
  if (transition.event === 'Decline') return { declineReason: transition.returnCode };
  if (transition.event === 'Refund') return { reversalReason: transition.returnCode };
  return {};
}

/**
 * Settles up to `limit` due debits through the payment pipeline; returns how many it claimed (0: nothing was
 * due).
 */
export async function settleBatch(
  services: CoreServices,
  limit: number,
  recurringDebits: RecurringDebits = noRecurringDebits,
): Promise<number> {
  const operation = settlementOperation(services, limit, recurringDebits);
  const ctx = { ...services, em: services.orm.em.fork() };
  const claimed = await operation.prepare(ctx);
  if (claimed.length === 0) return 0;
  const transitions = await runPrepared(ctx, operation, claimed);
  // Counted once committed.
  for (const t of transitions) if (t.status !== t.row.status) sepaSettlements.inc({ outcome: t.status });
  return claimed.length;
}

/** Drains every due debit: lanes run batches until one finds nothing due. Returns how many were settled. */
export async function settleDue(services: CoreServices, options: SettlementOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  let settled = 0;
  await runLanes(options.lanes ?? 3, async () => {
    const count = await settleBatch(services, batchSize, options.recurringDebits);
    settled += count;
    return count > 0; // a short batch may have made new steps due (a return after its collection)
  });
  return settled;
}

export async function startSettlementWorkers(
  services: CoreServices,
  onError: (error: unknown) => void,
  options: SettlementOptions = {},
): Promise<void> {
  await startRuns(services.jobs, settlementQueue, 600, () => settleDue(services, options), onError);
}
