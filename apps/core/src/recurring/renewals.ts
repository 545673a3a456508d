import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChargeFrequency } from '@paywire/contracts';
import { nowWithOffset } from '../clock/clock.ts';
import type { CoreServices, MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized, executePrepared, sendWithNext } from '../db/wire.ts';
import { type EventParameters, ReportedFailure } from '../ipn/events.ts';
import { workerContext } from '../jobs/context.ts';
import { inLanes } from '../jobs/lanes.ts';
import { renewalQueue, renewalRun, startRuns } from '../jobs/queues.ts';
import type { SplitTerms } from '../marketplace/splits.ts';
import { type FactsRow, factsOf } from '../merchants/facts.ts';
import { renewalSteps } from '../metrics.ts';
import type { DebitScheme } from '../sepa/entities.ts';
import { StoredCard } from '../shoppers/entities.ts';
import { type CardPayer, chargeSubscription } from './charge.ts';
import { afterDecline } from './dunning.ts';
import {
  recordSubscriptionEvent,
  recurringParameters,
  type SubscriptionFacts,
  subCcFailureParameters,
} from './events.ts';
import {
  claimRenewalCharges,
  extendLeaseAndRead,
  leaseDueRenewals,
  moveScheduleIfUnchanged,
  moveScheduleOrFail,
  releaseLease,
  renewalsOfDebits,
} from './queries.ts';
import { chargeDateStart, reminderAt, sendReminder } from './reminders.ts';
import { periodDueDate } from './schedule.ts';
import { isLastCharge, periodAmountMinor, termsOfRow } from './terms.ts';

/**
 * Renewals: every due period of every active plan-based subscription is charged by its merchant's clock,
 * exactly once whatever the number of cores, crashes or clock jumps:
 * - one pg-boss run at a time per database (a `stately` queue), every minute and at once when a sandbox
 *   clock moves (clock/service.ts) or a suspended subscription resumes;
 * - a run takes due subscriptions in batches, each batch one short transaction that leases them
 *   (renewal_lease_until, FOR UPDATE SKIP LOCKED), so a second core's run, or a run after a crash, never
 *   works a subscription another worker holds; a lease that ran out (its worker died) is taken over;
 * - each leased subscription is worked by one of many lanes (bounded), which walks its timeline up to the
 *   merchant's now: a SEPA reminder, then the charge of each due period in order, each dated when it fell
 *   due (a clock advance across several periods charges each once); no transaction or connection is held
 *   across the acquirer's answer (charge.ts goes through the phased createTransaction);
 * - a period's charge is the subscription charge row unique per (subscription, period) (charge.ts), and the
 *   schedule moves on only from the period it was read at (a conditional update), so a period is never
 *   charged twice even by a worker whose lease ran out under it.
 */
export interface RenewalOptions {
  /** Subscriptions leased per transaction. */
  batchSize?: number;
  /** Subscriptions worked at once (acquirer calls in flight). */
  concurrency?: number;
}

/** A subscription's state as its renewal reads it, with its merchant's facts (clock offset, IPN settings). */
interface RenewalRow extends FactsRow {
  id: string;
  merchant_id: number;
  status: string;
  auto_renew: boolean;
  next_period: number;
  next_charge_date: string | null;
  anchor_date: string;
  anchor_period: number;
  charges_made: number;
  currency: string;
  quantity: number;
  override_recurring_charge_minor: string | null;
  sepa_mandate_id: string | null;
  retry_at: Date | null;
  failed_since: Date | null;
  reminded_charge_date: string | null;
  shopper_id: number;
  first_name: string | null;
  last_name: string | null;
  plan_id: string;
  plan_name: string;
  charge_frequency: ChargeFrequency;
  recurring_charge_minor: string;
  max_number_of_charges: number | null;
  grace_period_days: number | null;
  mandate_reference: string | null;
  mandate_scheme: DebitScheme | null;
  iban_last_four: string | null;
  clock_offset_seconds: number;
  card_id: string | null;
  soft_descriptor: string | null;
  /** Its split's terms, read with the lease: a batch's charges record their splits without reading them. */
  vendor_split: SplitTerms | null;
}

/** A leased subscription: its row, and its vaulted shopper and card when it pays by card (read per batch). */
interface Leased {
  row: RenewalRow;
  payer: CardPayer | null;
  /** The charge of its first due period, claimed with its batch; taken by the walk's first charge. */
  claim: { period: number; id: number; attempt: number } | null;
}

/** The driver answers timestamps as text: the row with its instants as Dates. */
function withDates(row: RenewalRow): RenewalRow {
  const instant = (value: Date | null) => (value === null ? null : new Date(value));
  return { ...row, retry_at: instant(row.retry_at), failed_since: instant(row.failed_since) };
}

/** Reads the subscription and extends the worker's lease on it (the read sees the row as it was). */
async function readRow(em: EntityManager, id: string, leaseSeconds: number): Promise<RenewalRow | undefined> {
  const [row] = await executeParameterized<RenewalRow>(em, extendLeaseAndRead, [id, leaseSeconds]);
  return row && withDates(row);
}

/** What one renewal of the row charges (terms.ts). */
const renewalAmountMinor = (row: RenewalRow) => periodAmountMinor(termsOfRow(row));

function subscriptionFacts(row: RenewalRow): SubscriptionFacts {
  return {
    id: Number(row.id),
    planId: Number(row.plan_id),
    planName: row.plan_name,
    shopperId: row.shopper_id,
    firstName: row.first_name ?? '',
    lastName: row.last_name ?? '',
    currency: row.currency,
    recurringAmountMinor: renewalAmountMinor(row),
    chargeFrequency: row.charge_frequency,
    nextChargeDate: row.next_charge_date,
    autoRenew: row.auto_renew,
  };
}

/**
 * The Recurring parameters of SEPA renewal debits the bank collected (sepa/settlement.ts sends Recurring
 * for them instead of Charge), by debit id; dated at settlement. One query for a settlement batch.
 */
export async function renewalDebitParameters(
  em: EntityManager,
  debits: { id: string; settledAt: Date }[],
): Promise<Map<string, EventParameters>> {
  if (debits.length === 0) return new Map();
  const settledAt = new Map(debits.map((debit) => [debit.id, debit.settledAt]));
  const rows = await executeParameterized<RenewalRow & { sepa_debit_id: string }>(em, renewalsOfDebits, [
    JSON.stringify(debits.map((debit) => debit.id)),
  ]);
  return new Map(
    rows.map((row) => {
      const id = String(row.sepa_debit_id);
      return [id, recurringParameters(subscriptionFacts(row), settledAt.get(id) as Date)];
    }),
  );
}

/** The next thing due on a subscription's timeline, or null when nothing is due by `now`. */
type Step =
  | { kind: 'remind'; at: Date; chargeDate: string }
  | { kind: 'end'; at: Date }
  | { kind: 'charge'; at: Date };

function nextStep(row: RenewalRow, now: Date): Step | null {
  if (row.status !== 'ACTIVE' || row.next_charge_date === null) return null;
  const chargeDate = row.next_charge_date;
  // SEPA debits are pre-notified; ACH ones are not (docs/ach.md, Subscriptions)
  if (row.mandate_scheme === 'SEPA' && row.auto_renew && row.reminded_charge_date !== chargeDate) {
    const at = reminderAt(chargeDate);
    if (at <= now) return { kind: 'remind', at, chargeDate };
  }
  const dueAt = chargeDateStart(chargeDate);
  if (!row.auto_renew) return dueAt <= now ? { kind: 'end', at: dueAt } : null;
  const at = row.retry_at ?? dueAt;
  return at <= now ? { kind: 'charge', at } : null;
}

/** A renewal's call context: its merchant's facts are the ones its row was read with. */
const renewalContext = (services: CoreServices, row: RenewalRow): MerchantContext =>
  workerContext(services, row.merchant_id, services.orm.em.fork(), factsOf(row));

/** Where a walk is: its merchant's now, and how long its lease is extended by each write. */
interface Walk {
  now: Date;
  leaseSeconds: number;
}

/** What a step left: the subscription as it is now, and whether its lease was given back with it. */
interface Moved {
  row: RenewalRow;
  released: boolean;
}

/**
 * Moves the schedule on from `row.next_period`, only if the schedule is still the one read (same period,
 * date, plan and anchor: not canceled, moved to another date or switched to another plan through the API
 * meanwhile): the period paid (or skipped, or the subscription ended or suspended). The same write gives the
 * lease back when nothing else is due, or extends it. Null when the subscription changed meanwhile; with
 * `mustMove` (a charge's transaction) the write is not waited for: it travels with the transaction's next
 * statement and fails it, and so the transaction, when the subscription changed meanwhile.
 */
async function moveSchedule(
  em: EntityManager,
  row: RenewalRow,
  walk: Walk,
  change: {
    mustMove?: boolean;
    status?: 'ACTIVE' | 'CANCELED' | 'SUSPENDED' | 'FINISHED';
    nextPeriod?: number;
    charged?: boolean;
    retryAt?: Date | null;
    failedSince?: Date | null;
    canceledAt?: Date;
  },
): Promise<Moved | null> {
  const nextPeriod = change.nextPeriod ?? row.next_period;
  const status = change.status ?? 'ACTIVE';
  const after: RenewalRow = {
    ...row,
    status,
    next_period: nextPeriod,
    next_charge_date:
      status === 'ACTIVE' || status === 'SUSPENDED' ? periodDueDate(scheduleOf(row), nextPeriod) : null,
    charges_made: row.charges_made + (change.charged ? 1 : 0),
    retry_at: change.retryAt ?? null,
    failed_since: change.failedSince ?? null,
  };
  const released = nextStep(after, walk.now) === null;
  const parameters = [
    row.id,
    row.next_period,
    status,
    nextPeriod,
    after.next_charge_date,
    after.charges_made,
    after.retry_at,
    after.failed_since,
    change.canceledAt ?? null,
    released,
    walk.leaseSeconds,
    row.next_charge_date,
    row.plan_id,
    row.anchor_date,
    row.anchor_period,
    row.card_id,
  ];
  if (change.mustMove) {
    await sendWithNext(em, moveScheduleOrFail, parameters);
    return { row: after, released };
  }
  const moved = await executePrepared(em, moveScheduleIfUnchanged, parameters);
  return moved.length === 1 ? { row: after, released } : null;
}

const scheduleOf = (row: RenewalRow) => ({
  anchorDate: row.anchor_date,
  anchorPeriod: row.anchor_period,
  frequency: row.charge_frequency,
});

/** Whether the period being charged is the plan's last (terms.ts). */
const lastCharge = (row: RenewalRow): boolean =>
  isLastCharge(
    { chargeFrequency: row.charge_frequency, maxNumberOfCharges: row.max_number_of_charges },
    row.charges_made + 1,
  );

/** The subscription as it will be once the period is charged: what the Recurring event tells. */
function afterCharge(row: RenewalRow, nextPeriod: number, finished: boolean): SubscriptionFacts {
  return {
    ...subscriptionFacts(row),
    nextChargeDate: finished ? null : periodDueDate(scheduleOf(row), nextPeriod),
  };
}

/**
 * Charges the due period; an approval moves the schedule in the charge's own transaction, a decline goes
 * to dunning. 'busy' when the period is in flight (its walk stops until a later run); null when the state
 * must be read again (the charge was found made).
 */
async function chargeStep(
  services: CoreServices,
  { row, payer, claim }: Leased,
  at: Date,
  walk: Walk,
): Promise<Moved | 'busy' | null> {
  const finished = lastCharge(row);
  const nextPeriod = row.next_period + 1;
  const ctx = renewalContext(services, row);
  let moved: Moved | null = null;
  // The batch's claim and payer, when they are this period's and the card still the subscription's (read with
  // the lease; moveSchedule checks it again): the pipeline's batch entry takes the charge in prepared.
  const claimed =
    payer && claim?.period === row.next_period && String(payer.card?.id) === String(row.card_id)
      ? { payer, claim }
      : undefined;
  const result = await chargeSubscription(
    ctx,
    {
      subscriptionId: Number(row.id),
      period: row.next_period,
      kind: 'RECURRING',
      amountMinor: renewalAmountMinor(row),
      dueDate: row.next_charge_date as string,
      // The first payment (after a trial, or a free first period) is a Charge; Recurring the later ones.
      event: row.charges_made === 0 ? 'Charge' : 'Recurring',
      eventParameters: recurringParameters(afterCharge(row, nextPeriod, finished), at),
      onCharged: async (em) => {
        // Canceled, moved or switched meanwhile: the commit fails, the sale rolls back (its authorization is
        // voided) and the next run charges the subscription as it is now, if anything is due.
        moved = await moveSchedule(em, row, walk, {
          mustMove: true,
          nextPeriod,
          charged: true,
          ...(finished ? { status: 'FINISHED' } : {}),
        });
      },
    },
    claimed,
  );
  // An attempt without an outcome yet: chargeSubscription retries it once the recovery delay has passed,
  // which is when this walk's lease runs out for a later run.
  if (result.outcome === 'IN_FLIGHT') return 'busy';
  if (result.outcome !== 'DECLINED') {
    if (moved) renewalSteps.inc({ outcome: finished ? 'finished' : 'charged' }); // counted once committed
    return moved;
  }
  const reason = result.error.errorName;
  const declined = await inTransaction(ctx.em, async (em) => {
    const failedSince = row.failed_since ?? at;
    const next = afterDecline(row.grace_period_days, failedSince, at);
    const change =
      next.kind === 'skip-period'
        ? { nextPeriod: row.next_period + 1 }
        : next.kind === 'retry'
          ? { retryAt: next.at, failedSince }
          : { status: 'SUSPENDED' as const };
    const declined = await moveSchedule(em, row, walk, change);
    await recordSubscriptionEvent(
      ctx,
      em,
      'SubCcFailure',
      subCcFailureParameters(
        result.error instanceof ReportedFailure ? result.error.parameters : {},
        subscriptionFacts(row),
        at,
        reason,
      ),
    );
    return declined;
  });
  renewalSteps.inc({ outcome: declined?.row.status === 'SUSPENDED' ? 'suspended' : 'declined' });
  return declined;
}

/**
 * What a walk left: nothing due any more (its lease given back); a SEPA reminder's window open but its
 * time not come (lease given back, the run does not take it again); a period in flight elsewhere (the lease
 * is kept until it runs out, so no run spins on it).
 */
type WalkEnd = 'done' | 'waiting' | 'busy';

/**
 * Walks one leased subscription's timeline up to its merchant's now, from the state each step's write
 * leaves (read again only when a step cannot tell it). Bounded: at most `maxSteps` steps per lease (a DAILY
 * subscription after a years-long advance is leased again by a later batch), so lanes take turns.
 */
const maxSteps = 400;

async function renewSubscription(services: CoreServices, leased: Leased): Promise<WalkEnd> {
  const em = services.orm.em.fork();
  const leaseSeconds = services.payments.recoveryAfterSeconds;
  const { id } = leased.row;
  let row: RenewalRow | undefined = leased.row;
  for (let steps = 0; row && steps < maxSteps; steps++) {
    const walk: Walk = { now: nowWithOffset(services.mode, row.clock_offset_seconds), leaseSeconds };
    const step = nextStep(row, walk.now);
    if (step === null) {
      await giveBack(em, id);
      return steps === 0 ? 'waiting' : 'done';
    }
    let next: Moved | 'busy' | null;
    if (step.kind === 'charge') {
      next = await chargeStep(services, { ...leased, row }, step.at, walk);
      leased.claim = null; // used, or not this period's
    } else if (step.kind === 'end') {
      const current: RenewalRow = row;
      next = await inTransaction(
        em,
        (tx): Promise<Moved | null> =>
          moveSchedule(tx, current, walk, { status: 'CANCELED', canceledAt: step.at }),
      );
      if (next) renewalSteps.inc({ outcome: 'ended' });
    } else {
      next = { row: await remind(services, row, step.chargeDate, step.at), released: false };
    }
    if (next === 'busy') return 'busy';
    if (next?.released) return 'done';
    row = next ? next.row : await readRow(em, id, leaseSeconds);
  }
  if (row) await giveBack(em, id);
  return 'done';
}

function giveBack(em: EntityManager, id: string): Promise<unknown> {
  return executeParameterized(em, releaseLease, [id]);
}

/** Sends the SEPA reminder of the debit on `chargeDate`; the subscription as it is after. */
async function remind(
  services: CoreServices,
  row: RenewalRow,
  chargeDate: string,
  at: Date,
): Promise<RenewalRow> {
  const ctx = renewalContext(services, row);
  const debit = {
    amountMinor: renewalAmountMinor(row),
    currency: row.currency,
    chargeDate,
    mandateId: row.mandate_reference ?? '',
    ibanLastFour: row.iban_last_four ?? '',
  };
  await inTransaction(ctx.em, (em) => sendReminder(ctx, em, subscriptionFacts(row), debit, at));
  renewalSteps.inc({ outcome: 'reminded' });
  return { ...row, reminded_charge_date: chargeDate };
}

/**
 * Leases up to `limit` subscriptions with something due by their merchant's clock, and reads them (a walk
 * starts from them): a charge or retry, an end at period end, or (SEPA) a reminder, whose window opens at
 * most 14 days before the charge date (6 business days never span more; nextStep decides exactly).
 * Merchants are visited in turn, each one's subscriptions read through the partial index on
 * (merchant_id, next_charge_date).
 */
async function leaseDue(
  services: CoreServices,
  limit: number,
  leaseSeconds: number,
  passed: string[],
): Promise<Leased[]> {
  const em = services.orm.em.fork();
  const rows = await em.transactional((tx) =>
    executeParameterized<RenewalRow>(
      tx,
      leaseDueRenewals,
      // Core's clock, as everywhere in the domain, not the database's.
      [new Date(), services.mode === 'live', limit, leaseSeconds, JSON.stringify(passed)],
    ),
  );
  // The batch's vaulted cards with their shoppers, in one query: their charges do not read them one by one.
  const cardIds = rows
    .filter((row) => row.sepa_mandate_id === null && row.card_id !== null)
    .map((row) => Number(row.card_id));
  const cards =
    cardIds.length === 0
      ? []
      : await em.find(StoredCard, { id: { $in: cardIds } }, { populate: ['shopper'] });
  const byId = new Map(cards.map((card) => [String(card.id), card]));
  const leased = rows.map((row): Leased => {
    const card = row.card_id === null ? undefined : byId.get(String(row.card_id));
    return {
      row: withDates(row),
      payer: card
        ? {
            currency: row.currency,
            softDescriptor: row.soft_descriptor,
            shopper: card.shopper,
            card,
            split: row.vendor_split,
          }
        : null,
      claim: null,
    };
  });
  await claimFirstCharges(em, services, leased);
  return leased;
}

/**
 * Claims, in one statement, the charge of each leased card subscription whose walk starts with a charge:
 * the claim chargeSubscription would make (committed before the acquirer is asked), for the batch at once.
 * A subscription whose period is charged or in flight already gets none: its walk's charge finds out.
 */
async function claimFirstCharges(em: EntityManager, services: CoreServices, leased: Leased[]): Promise<void> {
  const charging = leased.filter(
    ({ row, payer }) =>
      payer !== null &&
      nextStep(row, nowWithOffset(services.mode, row.clock_offset_seconds))?.kind === 'charge',
  );
  if (charging.length === 0) return;
  const claims = await executeParameterized<{
    subscription_id: string;
    period: number;
    id: string;
    attempt: number;
  }>(em, claimRenewalCharges, [
    JSON.stringify(
      charging.map(({ row }) => ({
        merchant_id: row.merchant_id,
        subscription_id: row.id,
        period: row.next_period,
        amount_minor: renewalAmountMinor(row),
        currency: row.currency,
        due_date: row.next_charge_date,
      })),
    ),
  ]);
  const bySubscription = new Map(claims.map((claim) => [String(claim.subscription_id), claim]));
  for (const item of charging) {
    const claim = bySubscription.get(String(item.row.id));
    if (claim) item.claim = { period: claim.period, id: Number(claim.id), attempt: claim.attempt };
  }
}

/**
 * Renews everything due: many subscriptions in flight, bounded. A lease lasts the payments' recovery window
 * (PAYMENT_RECOVERY_AFTER_SECONDS: longer than an acquirer call may take, and refreshed at each step of a
 * walk), so a dead worker's subscriptions are taken over as soon as its payment attempts are resolved. One
 * subscription's failure is reported and leaves it to a later run; it does not stop the others. Returns
 * how many were worked.
 */
export async function renewDue(
  services: CoreServices,
  onError: (error: unknown) => void,
  options: RenewalOptions = {},
): Promise<number> {
  const leaseSeconds = services.payments.recoveryAfterSeconds;
  const waiting: string[] = []; // not taken again by this run
  return inLanes(
    () => leaseDue(services, options.batchSize ?? 200, leaseSeconds, waiting),
    async (leased) => {
      const end = await renewSubscription(services, leased).catch((error: unknown) => onError(error));
      if (end === 'waiting') waiting.push(leased.row.id);
    },
    options.concurrency ?? 256,
  );
}

export async function startRenewalWorkers(
  services: CoreServices,
  onError: (error: unknown) => void,
  options: RenewalOptions = {},
): Promise<void> {
  await startRuns(
    services.jobs,
    renewalQueue,
    renewalRun,
    900,
    () => renewDue(services, onError, options),
    onError,
  );
}
