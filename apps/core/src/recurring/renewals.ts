import type { EntityManager } from '@mikro-orm/postgresql';
import { nowWithOffset } from '../clock/clock.ts';
import type { CoreServices, MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized, executePrepared, sendWithNext } from '../db/wire.ts';
import { type EventParameters, ReportedFailure } from '../ipn/events.ts';
import { workerContext } from '../jobs/context.ts';
import { inLanes } from '../jobs/lanes.ts';
import { renewalQueue, startRuns } from '../jobs/queues.ts';
import { renewalSteps } from '../metrics.ts';
import { StoredCard } from '../shoppers/entities.ts';
import { type CardPayer, chargeSubscription } from './charge.ts';
import { afterDecline } from './dunning.ts';
import {
  recordSubscriptionEvent,
  recurringParameters,
  type SubscriptionFacts,
  subCcFailureParameters,
  subscriptionFactsOf,
} from './events.ts';
import { claimRenewalCharges, moveScheduleIfUnchanged, moveScheduleOrFail, releaseLease } from './queries.ts';
import { chargeDateStart, reminderAt, sendReminder } from './reminders.ts';
import { leaseDue, type RenewingSubscription, readLeased, renewedByDebits } from './renewing.ts';
import { periodDueDate } from './schedule.ts';
import { isLastCharge, recurringAmountOf } from './terms.ts';

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

/** A leased subscription, and its vaulted shopper and card when it pays by card (read per batch). */
interface Leased {
  subscription: RenewingSubscription;
  payer: CardPayer | null;
  /** The charge of its first due period, claimed with its batch; taken by the walk's first charge. */
  claim: { period: number; id: number; attempt: number } | null;
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
  const renewed = await renewedByDebits(
    em,
    debits.map((debit) => debit.id),
  );
  return new Map(
    [...renewed].map(([id, subscription]) => [
      id,
      recurringParameters(subscriptionFactsOf(subscription), settledAt.get(id) as Date),
    ]),
  );
}

/** The next thing due on a subscription's timeline, or null when nothing is due by `now`. */
type Step =
  | { kind: 'remind'; at: Date; chargeDate: string }
  | { kind: 'end'; at: Date }
  | { kind: 'charge'; at: Date };

function nextStep(subscription: RenewingSubscription, now: Date): Step | null {
  const { status, nextChargeDate: chargeDate, autoRenew } = subscription;
  if (status !== 'ACTIVE' || chargeDate === null) return null;
  // SEPA debits are pre-notified; ACH ones are not (docs/ach.md, Subscriptions)
  if (
    subscription.sepaMandate?.scheme === 'SEPA' &&
    autoRenew &&
    subscription.remindedChargeDate !== chargeDate
  ) {
    const at = reminderAt(chargeDate);
    if (at <= now) return { kind: 'remind', at, chargeDate };
  }
  const dueAt = chargeDateStart(chargeDate);
  if (!autoRenew) return dueAt <= now ? { kind: 'end', at: dueAt } : null;
  const at = subscription.retryAt ?? dueAt;
  return at <= now ? { kind: 'charge', at } : null;
}

/** Its merchant's now, by the clock offset it was read with. */
const merchantNow = (services: CoreServices, subscription: RenewingSubscription): Date =>
  nowWithOffset(services.mode, subscription.merchantFacts.offsetSeconds);

/** A renewal's call context: its merchant's facts are the ones the subscription was read with. */
const renewalContext = (services: CoreServices, subscription: RenewingSubscription): MerchantContext =>
  workerContext(services, subscription.merchantId, services.orm.em.fork(), subscription.merchantFacts);

/** Where a walk is: its merchant's now, and how long its lease is extended by each write. */
interface Walk {
  now: Date;
  leaseSeconds: number;
}

/** What a step left: the subscription as it is now, and whether its lease was given back with it. */
interface Moved {
  subscription: RenewingSubscription;
  released: boolean;
}

const scheduleOf = (subscription: RenewingSubscription) => ({
  anchorDate: subscription.anchorDate,
  anchorPeriod: subscription.anchorPeriod,
  frequency: subscription.plan.chargeFrequency,
});

/**
 * Moves the schedule on from `subscription.nextPeriod`, only if the schedule is still the one read (same
 * period, date, plan and anchor: not canceled, moved to another date or switched to another plan through the
 * API meanwhile): the period paid (or skipped, or the subscription ended or suspended). The same write gives
 * the lease back when nothing else is due, or extends it. Null when the subscription changed meanwhile; with
 * `mustMove` (a charge's transaction) the write is not waited for: it travels with the transaction's next
 * statement and fails it, and so the transaction, when the subscription changed meanwhile.
 */
async function moveSchedule(
  em: EntityManager,
  before: RenewingSubscription,
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
  const nextPeriod = change.nextPeriod ?? before.nextPeriod;
  const status = change.status ?? 'ACTIVE';
  const after: RenewingSubscription = {
    ...before,
    status,
    nextPeriod,
    nextChargeDate:
      status === 'ACTIVE' || status === 'SUSPENDED' ? periodDueDate(scheduleOf(before), nextPeriod) : null,
    chargesMade: before.chargesMade + (change.charged ? 1 : 0),
    retryAt: change.retryAt ?? null,
    failedSince: change.failedSince ?? null,
  };
  const released = nextStep(after, walk.now) === null;
  const parameters = [
    before.id,
    before.nextPeriod,
    status,
    nextPeriod,
    after.nextChargeDate,
    after.chargesMade,
    after.retryAt,
    after.failedSince,
    change.canceledAt ?? null,
    released,
    walk.leaseSeconds,
    before.nextChargeDate,
    before.plan.id,
    before.anchorDate,
    before.anchorPeriod,
    before.cardId,
  ];
  if (change.mustMove) {
    await sendWithNext(em, moveScheduleOrFail, parameters);
    return { subscription: after, released };
  }
  const moved = await executePrepared(em, moveScheduleIfUnchanged, parameters);
  return moved.length === 1 ? { subscription: after, released } : null;
}

/** Whether the period being charged is the plan's last (terms.ts). */
const lastCharge = (subscription: RenewingSubscription): boolean =>
  isLastCharge(subscription.plan, subscription.chargesMade + 1);

/** The subscription as it will be once the period is charged: what the Recurring event tells. */
function afterCharge(
  subscription: RenewingSubscription,
  nextPeriod: number,
  finished: boolean,
): SubscriptionFacts {
  return {
    ...subscriptionFactsOf(subscription),
    nextChargeDate: finished ? null : periodDueDate(scheduleOf(subscription), nextPeriod),
  };
}

/**
 * Charges the due period; an approval moves the schedule in the charge's own transaction, a decline goes
 * to dunning. 'busy' when the period is in flight (its walk stops until a later run); null when the state
 * must be read again (the charge was found made).
 */
async function chargeStep(
  services: CoreServices,
  { subscription, payer, claim }: Leased,
  at: Date,
  walk: Walk,
): Promise<Moved | 'busy' | null> {
  const finished = lastCharge(subscription);
  const nextPeriod = subscription.nextPeriod + 1;
  const ctx = renewalContext(services, subscription);
  let moved: Moved | null = null;
  // The batch's claim and payer, when they are this period's and the card still the subscription's (read with
  // the lease; moveSchedule checks it again): the pipeline's batch entry takes the charge in prepared.
  const claimed =
    payer && claim?.period === subscription.nextPeriod && payer.card?.id === subscription.cardId
      ? { payer, claim }
      : undefined;
  const result = await chargeSubscription(
    ctx,
    {
      subscriptionId: subscription.id,
      period: subscription.nextPeriod,
      kind: 'RECURRING',
      amountMinor: recurringAmountOf(subscription),
      dueDate: subscription.nextChargeDate as string,
      // The first payment (after a trial, or a free first period) is a Charge; Recurring the later ones.
      event: subscription.chargesMade === 0 ? 'Charge' : 'Recurring',
      eventParameters: recurringParameters(afterCharge(subscription, nextPeriod, finished), at),
      onCharged: async (em) => {
        // Canceled, moved or switched meanwhile: the commit fails, the sale rolls back (its authorization is
        // voided) and the next run charges the subscription as it is now, if anything is due.
        moved = await moveSchedule(em, subscription, walk, {
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
    const failedSince = subscription.failedSince ?? at;
    const next = afterDecline(subscription.plan.gracePeriodDays, failedSince, at);
    const change =
      next.kind === 'skip-period'
        ? { nextPeriod: subscription.nextPeriod + 1 }
        : next.kind === 'retry'
          ? { retryAt: next.at, failedSince }
          : { status: 'SUSPENDED' as const };
    const declined = await moveSchedule(em, subscription, walk, change);
    await recordSubscriptionEvent(
      ctx,
      em,
      'SubCcFailure',
      subCcFailureParameters(
        result.error instanceof ReportedFailure ? result.error.parameters : {},
        subscriptionFactsOf(subscription),
        at,
        reason,
      ),
    );
    return declined;
  });
  renewalSteps.inc({ outcome: declined?.subscription.status === 'SUSPENDED' ? 'suspended' : 'declined' });
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
  const { id } = leased.subscription;
  let subscription: RenewingSubscription | undefined = leased.subscription;
  for (let steps = 0; subscription && steps < maxSteps; steps++) {
    const walk: Walk = { now: merchantNow(services, subscription), leaseSeconds };
    const step = nextStep(subscription, walk.now);
    if (step === null) {
      await giveBack(em, id);
      return steps === 0 ? 'waiting' : 'done';
    }
    let next: Moved | 'busy' | null;
    if (step.kind === 'charge') {
      next = await chargeStep(services, { ...leased, subscription }, step.at, walk);
      leased.claim = null; // used, or not this period's
    } else if (step.kind === 'end') {
      const current: RenewingSubscription = subscription;
      next = await inTransaction(
        em,
        (tx): Promise<Moved | null> =>
          moveSchedule(tx, current, walk, { status: 'CANCELED', canceledAt: step.at }),
      );
      if (next) renewalSteps.inc({ outcome: 'ended' });
    } else {
      next = {
        subscription: await remind(services, subscription, step.chargeDate, step.at),
        released: false,
      };
    }
    if (next === 'busy') return 'busy';
    if (next?.released) return 'done';
    subscription = next ? next.subscription : await readLeased(em, id, leaseSeconds);
  }
  if (subscription) await giveBack(em, id);
  return 'done';
}

function giveBack(em: EntityManager, id: number): Promise<unknown> {
  return executeParameterized(em, releaseLease, [id]);
}

/** Sends the SEPA reminder of the debit on `chargeDate`; the subscription as it is after. */
async function remind(
  services: CoreServices,
  subscription: RenewingSubscription,
  chargeDate: string,
  at: Date,
): Promise<RenewingSubscription> {
  const ctx = renewalContext(services, subscription);
  const debit = {
    amountMinor: recurringAmountOf(subscription),
    currency: subscription.currency,
    chargeDate,
    mandateId: subscription.sepaMandate?.reference ?? '',
    ibanLastFour: subscription.sepaMandate?.ibanLastFour ?? '',
  };
  await inTransaction(ctx.em, (em) => sendReminder(ctx, em, subscriptionFactsOf(subscription), debit, at));
  renewalSteps.inc({ outcome: 'reminded' });
  return { ...subscription, remindedChargeDate: chargeDate };
}

/**
 * Leases a batch of subscriptions with something due (renewing.ts) and reads, in one query, the vaulted
 * cards of those paying by card, with their shoppers: their charges do not read them one by one. Merchants
 * are visited in turn, each one's subscriptions read through the partial index on (merchant_id,
 * next_charge_date).
 */
async function leaseBatch(
  services: CoreServices,
  limit: number,
  leaseSeconds: number,
  passed: number[],
): Promise<Leased[]> {
  const em = services.orm.em.fork();
  const subscriptions = await leaseDue(em, new Date(), services.mode === 'live', limit, leaseSeconds, passed);
  const cardIds = subscriptions.flatMap(({ sepaMandate, cardId }) =>
    sepaMandate === null && cardId !== null ? [cardId] : [],
  );
  const cards =
    cardIds.length === 0
      ? []
      : await em.find(StoredCard, { id: { $in: cardIds } }, { populate: ['shopper'] });
  const byId = new Map(cards.map((card) => [card.id, card]));
  const leased = subscriptions.map((subscription): Leased => {
    const card = subscription.cardId === null ? undefined : byId.get(subscription.cardId);
    return {
      subscription,
      payer: card
        ? {
            currency: subscription.currency,
            softDescriptor: subscription.softDescriptor,
            shopper: card.shopper,
            card,
            split: subscription.vendorSplit,
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
    ({ subscription, payer }) =>
      payer !== null && nextStep(subscription, merchantNow(services, subscription))?.kind === 'charge',
  );
  if (charging.length === 0) return;
  const claims = await executeParameterized<{
    subscription_id: string;
    period: number;
    id: string;
    attempt: number;
  }>(em, claimRenewalCharges, [
    JSON.stringify(
      charging.map(({ subscription }) => ({
        merchant_id: subscription.merchantId,
        subscription_id: subscription.id,
        period: subscription.nextPeriod,
        amount_minor: recurringAmountOf(subscription),
        currency: subscription.currency,
        due_date: subscription.nextChargeDate,
      })),
    ),
  ]);
  const bySubscription = new Map(claims.map((claim) => [Number(claim.subscription_id), claim]));
  for (const item of charging) {
    const claim = bySubscription.get(item.subscription.id);
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
  const waiting: number[] = []; // not taken again by this run
  return inLanes(
    () => leaseBatch(services, options.batchSize ?? 200, leaseSeconds, waiting),
    async (leased) => {
      const end = await renewSubscription(services, leased).catch((error: unknown) => onError(error));
      if (end === 'waiting') waiting.push(leased.subscription.id);
    },
    options.concurrency ?? 256,
  );
}

export async function startRenewalWorkers(
  services: CoreServices,
  onError: (error: unknown) => void,
  options: RenewalOptions = {},
): Promise<void> {
  await startRuns(services.jobs, renewalQueue, 900, () => renewDue(services, onError, options), onError);
}
