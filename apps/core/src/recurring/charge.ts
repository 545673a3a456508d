import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, minorToDecimal } from '@paywire/contracts';
import type { CardDeclined } from '../cards/events.ts';
import { type PreparedSale, type SaleRecord, saleOperation } from '../cards/sale.ts';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized, sendWithNext } from '../db/wire.ts';
import { type EventParameters, recordReportedFailure } from '../ipn/events.ts';
import { recordSplit, type SplitTerms, splitOf } from '../marketplace/splits.ts';
import type { Authorized } from '../payments/authorize.ts';
import { type PaymentOperation, runPayment, runPrepared } from '../payments/pipeline.ts';
import { openMandateDebit } from '../sepa/debits.ts';
import type { Shopper, StoredCard } from '../shoppers/entities.ts';
import { type ChargeKind, Subscription, SubscriptionCharge } from './entities.ts';
import { claimPeriodCharge, reclaimStaleCharge, settleCharge } from './queries.ts';
import { calendarDate } from './schedule.ts';

/** One charge of an existing subscription (see chargeSubscription). */
export interface SubscriptionChargeRequest {
  subscriptionId: number;
  /** The schedule's period (0 the initial charge, n >= 1 renewals), or null for a charge outside it. */
  period: number | null;
  kind: ChargeKind;
  amountMinor: number;
  /** yyyy-mm-dd of the merchant's clock: when the period fell due; the charge is dated by it. */
  dueDate: string;
  chargeInfo?: {
    chargeDescription?: string | undefined;
    fromDate?: string | undefined;
    toDate?: string | undefined;
  };
  merchantTransactionId?: string | undefined;
  /** This charge's own split (a merchant-managed charge's vendorsInfo), instead of its subscription's. */
  split?: SplitTerms | undefined;
  /** The IPN event of a successful card charge (Charge unless given: renewals send Recurring) and extra parameters. */
  event?: 'Charge' | 'Recurring';
  eventParameters?: EventParameters;
  /**
   * Writes that commit in the charge's own transaction once it succeeded (the next period, charges made).
   * What it returns is the answer a keyed call (ctx.keyed) records.
   */
  onCharged?: (em: EntityManager, charged: ChargedRow) => Promise<unknown>;
}

/**
 * The charge row just marked CHARGED: its CHARGED write travels with the transaction's next statement (no
 * round trip of its own), so the row is read only by a caller that shows it.
 */
export interface ChargedRow {
  id: number;
  read(): Promise<SubscriptionCharge>;
}

/**
 * What a card charge needs of its subscription: its currency, descriptor, vaulted shopper and card, and the
 * terms of its split between vendors.
 */
export interface CardPayer {
  currency: string;
  softDescriptor: string | null;
  split: SplitTerms | null;
  shopper: Shopper;
  /** Null: the shopper's newest card. */
  card: StoredCard | null;
}

/** A period's charge row, claimed for one attempt. */
export interface ChargeClaim {
  id: number;
  attempt: number;
}

export type ChargeOutcome =
  | { outcome: 'CHARGED'; chargeId: number; answer: unknown }
  /** The processor declined: the row is DECLINED, a later attempt of the same period may retry it. */
  | { outcome: 'DECLINED'; chargeId: number; error: CardDeclined }
  /** The period was charged already, or an attempt of it is in flight: nothing was done. */
  | { outcome: 'ALREADY_CHARGED' | 'IN_FLIGHT'; chargeId: number };

/**
 * The acquirer's reference of one attempt of one charge, derived from the row, so the same attempt always
 * reaches the acquirer under the same reference (which it honours at most once). A UUID in form.
 */
export function chargeReference(chargeId: number, attempt: number): string {
  const hex = createHash('sha256').update(`subscription-charge:${chargeId}:${attempt}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Claims the charge row: a new one, or a DECLINED one of the same period taken back to PENDING for one
 * more attempt. Null when the period is CHARGED or PENDING already (the unique (subscription, period) key
 * makes a second claim of a period impossible, whatever the number of callers).
 */
async function claimCharge(
  em: EntityManager,
  merchantId: number,
  request: SubscriptionChargeRequest,
  currency: string,
): Promise<ChargeClaim | null> {
  const info = request.chargeInfo;
  const rows = await executeParameterized<{ id: string; attempt: number }>(em, claimPeriodCharge, [
    merchantId,
    request.subscriptionId,
    request.period,
    request.kind,
    request.amountMinor,
    currency,
    request.dueDate,
    info?.chargeDescription ?? null,
    info?.fromDate ?? null,
    info?.toDate ?? null,
  ]);
  const [row] = rows;
  return row ? { id: Number(row.id), attempt: row.attempt } : null;
}

/**
 * A PENDING row whose attempt never reached the acquirer (core died between the claim and the attempt) or
 * was resolved without a sale (the recovery worker voided it) is claimed again as one more attempt, once it
 * is older than the recovery delay, so a live caller's attempt is never taken over. An attempt still
 * unresolved stays in flight: the recovery worker settles it first.
 */
async function reclaimStale(
  em: EntityManager,
  charge: SubscriptionCharge,
  staleAfterSeconds: number,
): Promise<ChargeClaim | null> {
  if (charge.status !== 'PENDING') return null;
  const rows = await executeParameterized<{ attempt: number }>(em, reclaimStaleCharge, [
    charge.id,
    charge.attempt,
    staleAfterSeconds,
    chargeReference(charge.id, charge.attempt),
  ]);
  const [row] = rows;
  if (!row) return null;
  charge.attempt = row.attempt; // the entity this unit of work holds follows the row
  return { id: charge.id, attempt: row.attempt };
}

/**
 * Marks the claimed charge CHARGED by its payment. The write is not waited for: it travels with the
 * transaction's next statement (whose failure fails the commit).
 */
async function settle(
  em: EntityManager,
  chargeId: number,
  payment: { cardTransactionId: number } | { sepaDebitId: number },
  chargedAt: Date,
): Promise<void> {
  await sendWithNext(em, settleCharge, [
    chargeId,
    chargedAt,
    'cardTransactionId' in payment ? payment.cardTransactionId : null,
    'sepaDebitId' in payment ? payment.sepaDebitId : null,
  ]);
}

/** Records a subscription charge's split (its terms applied to its amount), when it has one. */
export async function recordChargeSplit(
  em: EntityManager,
  merchantId: number,
  paymentId: number,
  terms: SplitTerms | null | undefined,
  amountMinor: number,
): Promise<void> {
  if (terms) await recordSplit(em, merchantId, paymentId, splitOf(terms, amountMinor));
}

/** A charge prepared: done already (found charged or in flight, or a bank debit opened), or a card sale. */
type PreparedCharge =
  | { done: ChargeOutcome }
  | {
      done?: undefined;
      chargeId: number;
      sale: PaymentOperation<PreparedSale, Authorized, SaleRecord>;
      prepared: PreparedSale;
      split: SplitTerms | null;
    };

/**
 * One charge of a subscription as a payment operation (payments/pipeline.ts). Prepare claims the charge row
 * (a scheduled period has one row, unique per subscription and period, so a period is never charged twice:
 * a second call finds it CHARGED or in flight and does nothing) and prepares the card sale under the
 * reference derived from the row; a SEPA or ECP subscription's debit is opened there and then (the bank
 * answers later, through settlement). The call is the sale's; record writes the sale and the row CHARGED with
 * `onCharged`'s writes, or the row DECLINED, in one transaction. An unknown outcome leaves the row PENDING
 * and the payment attempt to the recovery worker, which voids it: a later call retries the period as a new
 * attempt once the row is older than the recovery delay (reclaimStale).
 */
function chargeOperation(ctx: MerchantContext, request: SubscriptionChargeRequest) {
  /** The claim, or what was found instead: the period charged already or in flight. */
  const claimIn = async (
    em: EntityManager,
    currency: string,
  ): Promise<{ claim: ChargeClaim } | ChargeOutcome> => {
    const claim = await claimCharge(em, ctx.merchantId, request, currency);
    if (claim) return { claim };
    const charge = await em.findOneOrFail(SubscriptionCharge, {
      subscription: request.subscriptionId,
      period: request.period,
    });
    const reclaimed = await reclaimStale(em, charge, ctx.payments.recoveryAfterSeconds);
    if (reclaimed) return { claim: reclaimed };
    return { outcome: charge.status === 'CHARGED' ? 'ALREADY_CHARGED' : 'IN_FLIGHT', chargeId: charge.id };
  };
  /**
   * A paid charge's writes, card or debit alike, in the transaction that records the payment: the row
   * CHARGED with its payment, the vendors' split, then the caller's writes and a keyed call's answer.
   */
  const recordPaid = async (
    em: EntityManager,
    chargeId: number,
    payment: { cardTransactionId: number } | { sepaDebitId: number },
    split: SplitTerms | null | undefined,
    at: Date,
  ): Promise<ChargeOutcome> => {
    await settle(em, chargeId, payment, at);
    const paymentId = 'cardTransactionId' in payment ? payment.cardTransactionId : payment.sepaDebitId;
    await recordChargeSplit(em, ctx.merchantId, paymentId, split, request.amountMinor);
    const charged: ChargedRow = {
      id: chargeId,
      read: () => em.findOneOrFail(SubscriptionCharge, chargeId, { refresh: true }),
    };
    const answer = await request.onCharged?.(em, charged);
    await ctx.keyed?.record(em, answer);
    return { outcome: 'CHARGED', chargeId, answer };
  };
  /** The card sale of a claimed charge: prepared here, or for a whole batch by its caller (renewals). */
  const prepareClaimed = async (payer: CardPayer, claim: ChargeClaim): Promise<PreparedCharge> => {
    const sale = saleOperation(
      ctx,
      {
        cardTransactionType: 'AUTH_CAPTURE',
        amount: minorToDecimal(request.amountMinor, payer.currency),
        currency: payer.currency,
        vaultedShopperId: payer.shopper.id,
        ...(payer.softDescriptor ? { softDescriptor: payer.softDescriptor } : {}),
        ...(request.merchantTransactionId ? { merchantTransactionId: request.merchantTransactionId } : {}),
      },
      {
        reference: chargeReference(claim.id, claim.attempt),
        screen: false, // made by the schedule or the merchant, with no shopper present
        ...(payer.card ? { vaulted: { shopper: payer.shopper, card: payer.card } } : {}),
        ...(request.event ? { event: request.event } : {}),
        ...(request.eventParameters ? { eventParameters: request.eventParameters } : {}),
      },
    );
    return {
      chargeId: claim.id,
      sale,
      prepared: await sale.prepare(ctx),
      split: request.split ?? payer.split,
    };
  };
  const operation: PaymentOperation<PreparedCharge, Authorized | null, ChargeOutcome> = {
    async prepare() {
      type Claimed = { done: ChargeOutcome } | { payer: CardPayer; claim: ChargeClaim };
      const claimed = await inTransaction(ctx.em, async (em): Promise<Claimed> => {
        const subscription = await em.findOne(
          Subscription,
          { id: request.subscriptionId, merchantId: ctx.merchantId },
          { populate: ['shopper', 'card', 'sepaMandate'] },
        );
        if (!subscription) {
          throw new DomainError(
            'SUBSCRIPTION_NOT_FOUND',
            `subscription ${request.subscriptionId} was not found`,
          );
        }
        const found = await claimIn(em, subscription.currency);
        if (!('claim' in found)) return { done: found };
        const { claim } = found;
        if (!subscription.sepaMandate) {
          const { currency, softDescriptor, shopper, card, vendorSplit } = subscription;
          return {
            payer: {
              currency,
              softDescriptor: softDescriptor ?? null,
              shopper,
              card: card ?? null,
              split: vendorSplit ?? null,
            },
            claim,
          };
        }
        // SEPA or ACH: the debit is opened in this transaction; the bank answers later through settlement.
        const now = await callNow(ctx, em);
        const debit = await openMandateDebit(
          ctx,
          em,
          subscription.sepaMandate,
          {
            shopper: subscription.shopper,
            payer: {
              firstName: subscription.shopper.firstName ?? '',
              lastName: subscription.shopper.lastName ?? '',
            },
            amountMinor: request.amountMinor,
            ...(request.merchantTransactionId
              ? { merchantTransactionId: request.merchantTransactionId }
              : {}),
          },
          now,
        );
        const payment = { sepaDebitId: Number(debit.transactionId) };
        const split = request.split ?? subscription.vendorSplit;
        return { done: await recordPaid(em, claim.id, payment, split, now) };
      });
      return 'done' in claimed ? { done: claimed.done } : prepareClaimed(claimed.payer, claimed.claim);
    },
    call: async (ctx, charge) => (charge.done ? null : charge.sale.call(ctx, charge.prepared)),
    async record(em, charge, authorized) {
      if (charge.done) return charge.done;
      const { chargeId } = charge;
      const sale = await charge.sale.record(em, charge.prepared, authorized as Authorized);
      if (sale.declined) {
        const row = em.getReference(SubscriptionCharge, chargeId);
        row.status = 'DECLINED';
        row.declineReason = sale.declined.errorName;
        await em.flush();
        return { outcome: 'DECLINED', chargeId, error: sale.declined };
      }
      const payment = { cardTransactionId: sale.transactionId };
      return recordPaid(em, chargeId, payment, charge.split, charge.prepared.now);
    },
    async compensate(ctx, charge, authorized) {
      if (!charge.done && authorized) await charge.sale.compensate?.(ctx, charge.prepared, authorized);
    },
  };
  return { operation, prepareClaimed };
}

/**
 * Makes one charge of a subscription through the payment pipeline (chargeOperation). `claimed` is the
 * pipeline's batch entry: renewals claim a leased batch's charges and read their payers at once, and hand
 * each charge in prepared. A decline is reported (the Decline IPN) and answered, not thrown: the caller
 * decides on dunning. The subscription must be the context merchant's; its status is the caller's to check.
 */
export async function chargeSubscription(
  ctx: MerchantContext,
  request: SubscriptionChargeRequest,
  claimed?: { payer: CardPayer; claim: ChargeClaim },
): Promise<ChargeOutcome> {
  const { operation, prepareClaimed } = chargeOperation(ctx, request);
  const outcome = claimed
    ? await runPrepared(ctx, operation, await prepareClaimed(claimed.payer, claimed.claim))
    : await runPayment(ctx, operation);
  if (outcome.outcome === 'DECLINED') await recordReportedFailure(ctx, outcome.error);
  return outcome;
}

/**
 * A charge outside the schedule (a merchant's charge, a plan switch's difference), dated by the merchant's
 * clock now: a decline is thrown; the answer is what `onCharged` built in the charge's transaction.
 */
export async function chargeOffSchedule<T>(
  ctx: MerchantContext,
  request: Omit<SubscriptionChargeRequest, 'period' | 'dueDate' | 'onCharged'>,
  onCharged: (em: EntityManager, charged: ChargedRow, now: Date) => Promise<T>,
): Promise<T> {
  const now = await callNow(ctx, ctx.em);
  const outcome = await chargeSubscription(ctx, {
    ...request,
    period: null,
    dueDate: calendarDate(now),
    onCharged: (em, charged) => onCharged(em, charged, now),
  });
  if (outcome.outcome === 'DECLINED') throw outcome.error;
  // a charge outside the schedule claims a row of its own, so it is never ALREADY_CHARGED or IN_FLIGHT
  return (outcome as { answer: T }).answer;
}
