import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, minorToDecimal } from '@paywire/contracts';
import { CardDeclined } from '../cards/events.ts';
import { runSale } from '../cards/sale.ts';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized, executePrepared, sendWithNext } from '../db/wire.ts';
import type { EventParameters } from '../ipn/events.ts';
import { openSepaDebit } from '../sepa/service.ts';
import type { Shopper, StoredCard } from '../shoppers/entities.ts';
import { type ChargeKind, Subscription, SubscriptionCharge } from './entities.ts';
import { claimPeriodCharge, reclaimStaleCharge, settleCharge, settleChargeReturning } from './queries.ts';

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
  /** The IPN event of a successful card charge (Charge unless given: renewals send Recurring) and extra parameters. */
  event?: 'Charge' | 'Recurring';
  eventParameters?: EventParameters;
  /**
   * Writes that commit in the charge's own transaction once it succeeded (the next period, charges made).
   * What it returns is the answer a keyed call (ctx.keyed) records.
   */
  onCharged?: (em: EntityManager, charge: SubscriptionCharge) => Promise<unknown>;
  /**
   * A card subscription as its caller read it already (renewals read a leased batch's at once): the charge
   * skips reading it, and its claim is one statement of its own.
   */
  payer?: KnownPayer;
  /** With `payer`: the period's charge row, claimed already (renewals claim a leased batch's at once). */
  claimed?: { id: number; attempt: number };
  /**
   * The caller reads nothing of the charge row (renewals): its CHARGED write is not waited for but travels
   * with the transaction's next statement (whose failure fails the commit), and `onCharged` and the outcome
   * get a reference to the row, not its state.
   */
  rowUnread?: boolean;
}

/** What a card charge needs of its subscription: its currency, descriptor and vaulted shopper and card. */
export interface KnownPayer {
  currency: string;
  softDescriptor: string | null;
  shopper: Shopper;
  /** Null: the shopper's newest card. */
  card: StoredCard | null;
}

export type ChargeOutcome =
  | { outcome: 'CHARGED'; charge: SubscriptionCharge; answer: unknown }
  /** The acquirer declined: the row is DECLINED, a later attempt of the same period may retry it. */
  | { outcome: 'DECLINED'; charge: SubscriptionCharge; error: DomainError }
  /** The period was charged already, or an attempt of it is in flight: nothing was done. */
  | { outcome: 'ALREADY_CHARGED' | 'IN_FLIGHT'; charge: SubscriptionCharge };

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
): Promise<{ id: number; attempt: number } | null> {
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
): Promise<{ id: number; attempt: number } | null> {
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
 * Marks the claimed charge CHARGED by its payment: one statement, the row it leaves as the entity; `unread`,
 * sent with the transaction's next statement, and a reference to the row.
 */
async function settle(
  em: EntityManager,
  chargeId: number,
  payment: { cardTransactionId: number } | { sepaDebitId: number },
  chargedAt: Date,
  unread = false,
): Promise<SubscriptionCharge> {
  const parameters = [
    chargeId,
    chargedAt,
    'cardTransactionId' in payment ? payment.cardTransactionId : null,
    'sepaDebitId' in payment ? payment.sepaDebitId : null,
  ];
  if (unread) {
    await sendWithNext(em, settleCharge, parameters);
    return em.getReference(SubscriptionCharge, chargeId);
  }
  const [row] = await executePrepared<Record<string, unknown>>(em, settleChargeReturning, parameters);
  return em.map(SubscriptionCharge, row as Record<string, unknown>);
}

/**
 * Makes one charge of a subscription through the payment path: the shopper's card (createTransaction, with
 * the reference derived from the charge row) or its SEPA mandate (openSepaDebit). The charge row is
 * committed PENDING before the acquirer is asked, and a scheduled period has one row (unique per
 * subscription and period), so a period is never charged twice: a second call finds it CHARGED or in
 * flight and does nothing. A decline leaves the row DECLINED (the caller decides on dunning); an approval
 * and the row's CHARGED state, with `onCharged`'s writes, commit in one transaction. An unknown outcome
 * (acquirer silent, core killed) leaves the row PENDING and the payment attempt to the recovery worker,
 * which voids it: the shopper is not charged, and a later call retries the period as a new attempt once the
 * row is older than the recovery delay (reclaimStale).
 *
 * The subscription must be the context merchant's; its status is the caller's to check.
 */
export async function chargeSubscription(
  ctx: MerchantContext,
  request: SubscriptionChargeRequest,
): Promise<ChargeOutcome> {
  type Claimed = { done: ChargeOutcome } | { payer: KnownPayer; claim: { id: number; attempt: number } };
  /** The claim, or what was found instead: the period charged already or in flight. */
  const claimIn = async (em: EntityManager, currency: string) => {
    const claim = await claimCharge(em, ctx.merchantId, request, currency);
    if (claim) return { claim };
    const charge = await em.findOneOrFail(SubscriptionCharge, {
      subscription: request.subscriptionId,
      period: request.period,
    });
    const reclaimed = await reclaimStale(em, charge, ctx.payments.recoveryAfterSeconds);
    if (reclaimed) return { claim: reclaimed };
    const outcome = charge.status === 'CHARGED' ? 'ALREADY_CHARGED' : 'IN_FLIGHT';
    return { done: { outcome, charge } as ChargeOutcome };
  };
  // A known card subscription's claim needs no transaction: each of its statements is atomic on its own.
  const known = request.payer;
  const claimed: Claimed =
    known && request.claimed
      ? { payer: known, claim: request.claimed }
      : known
        ? await claimIn(ctx.em, known.currency).then(
            (found) => (found.claim ? { payer: known, claim: found.claim } : found) as Claimed,
          )
        : await inTransaction(ctx.em, async (em): Promise<Claimed> => {
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
            if (!found.claim) return found as Claimed;
            const { claim } = found;
            if (!subscription.sepaMandate) {
              const { currency, softDescriptor, shopper, card } = subscription;
              return {
                payer: { currency, softDescriptor: softDescriptor ?? null, shopper, card: card ?? null },
                claim,
              };
            }
            // SEPA: the debit is opened in this transaction; the bank answers later through settlement.
            const now = await callNow(ctx, em);
            const mandate = subscription.sepaMandate;
            const debit = await openSepaDebit(
              ctx,
              em,
              {
                shopper: subscription.shopper,
                iban: ctx.vault.open(mandate.sealedIban),
                payer: {
                  firstName: subscription.shopper.firstName ?? '',
                  lastName: subscription.shopper.lastName ?? '',
                },
                amountMinor: request.amountMinor,
                currency: 'EUR',
                ...(request.merchantTransactionId
                  ? { merchantTransactionId: request.merchantTransactionId }
                  : {}),
              },
              now,
            );
            const charge = await settle(em, claim.id, { sepaDebitId: Number(debit.transactionId) }, now);
            const answer = await request.onCharged?.(em, charge);
            await ctx.keyed?.record(em, answer);
            return { done: { outcome: 'CHARGED', charge, answer } };
          });
  if ('done' in claimed) return claimed.done;

  const { payer, claim } = claimed;
  let charge: SubscriptionCharge | undefined;
  let answer: unknown;
  try {
    answer = await runSale(
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
        ...(payer.card ? { vaulted: { shopper: payer.shopper, card: payer.card } } : {}),
        ...(request.event ? { event: request.event } : {}),
        ...(request.eventParameters ? { eventParameters: request.eventParameters } : {}),
      },
      async (em, sale) => {
        const now = await callNow(ctx, em);
        const payment = { cardTransactionId: sale.transactionId };
        charge = await settle(em, claim.id, payment, now, request.rowUnread);
        return request.onCharged?.(em, charge);
      },
    );
  } catch (error) {
    if (!(error instanceof CardDeclined)) throw error;
    const declined = await inTransaction(ctx.em, async (em) => {
      const row = await em.findOneOrFail(SubscriptionCharge, claim.id);
      row.status = 'DECLINED';
      row.declineReason = error.errorName;
      await em.flush();
      return row;
    });
    return { outcome: 'DECLINED', charge: declined, error };
  }
  return { outcome: 'CHARGED', charge: charge as SubscriptionCharge, answer };
}
