import type { EntityManager } from '@mikro-orm/postgresql';
import { minorToDecimal, type payerInfoInput } from '@paywire/contracts';
import type { z } from 'zod';
import { runSale } from '../cards/sale.ts';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import type { SplitTerms } from '../marketplace/splits.ts';
import { openMandateDebit } from '../sepa/debits.ts';
import { Shopper, StoredCard } from '../shoppers/entities.ts';
import { findShopper, newShopper, pickFields } from '../shoppers/service.ts';
import { recordChargeSplit } from './charge.ts';
import { type RecurringPlan, Subscription, SubscriptionCharge } from './entities.ts';
import {
  type PaymentSourceInput,
  requireDebitTerms,
  resolvePayer,
  sourceScheme,
  storedPayer,
} from './payment-source.ts';
import { cardOfSale, nextSubscriptionId } from './queries.ts';
import { addCalendarDays, addFrequency, calendarDate, periodDueDate } from './schedule.ts';
import { isLastCharge } from './terms.ts';

type PayerInfo = z.output<typeof payerInfoInput>;

/** A new subscription as its creation request describes it (plan-based, or merchant-managed with no plan). */
export interface Opening {
  plan: RecurringPlan | null;
  currency: string;
  vaultedShopperId?: number | undefined;
  payerInfo?: PayerInfo | undefined;
  paymentSource?: PaymentSourceInput | undefined;
  quantity: number;
  softDescriptor?: string | undefined;
  descriptorPhoneNumber?: string | undefined;
  overrideRecurringChargeMinor?: number | undefined;
  overrideTrialPeriodDays?: number | undefined;
  overrideInitialChargeMinor?: number | undefined;
  /** What is charged at creation (0: nothing, e.g. during a trial). */
  firstChargeMinor: number;
  trialDays: number;
  merchantTransactionId?: string | undefined;
  /** The terms of its split between vendors, validated, for every charge; null: none. */
  split: SplitTerms | null;
}

/**
 * Counts a charged scheduled period and moves the subscription to the next one, or to FINISHED when its
 * plan's charges are done (ONCE: one charge; maxNumberOfCharges). The initial charge's; a renewal moves its
 * row's schedule in SQL (renewals.ts, moveScheduleIfUnchanged) by the same terms (terms.ts).
 */
function advanceSchedule(subscription: Subscription, chargedPeriod: number): void {
  const plan = subscription.plan as RecurringPlan;
  subscription.chargesMade += 1;
  subscription.nextPeriod = chargedPeriod + 1;
  if (isLastCharge(plan, subscription.chargesMade)) {
    subscription.status = 'FINISHED';
    subscription.nextChargeDate = null;
    return;
  }
  subscription.nextChargeDate = periodDueDate(
    {
      anchorDate: subscription.anchorDate as string,
      anchorPeriod: subscription.anchorPeriod,
      frequency: plan.chargeFrequency,
    },
    subscription.nextPeriod,
  );
}

async function allocateSubscriptionId(em: EntityManager): Promise<number> {
  const [row] = await executeParameterized<{ id: string }>(em, nextSubscriptionId, []);
  return Number(row?.id);
}

/** The subscription's row, its schedule placed from today: a trial first, else period 0 today. */
function newSubscription(
  em: EntityManager,
  ctx: MerchantContext,
  id: number,
  opening: Opening,
  shopper: Shopper,
  payer: { card?: StoredCard | undefined; mandate?: Subscription['sepaMandate'] },
  now: Date,
): Subscription {
  const today = calendarDate(now);
  const { plan } = opening;
  const anchorDate = plan
    ? opening.trialDays > 0
      ? addCalendarDays(today, opening.trialDays)
      : addFrequency(today, plan.chargeFrequency, 1)
    : null;
  return em.create(Subscription, {
    id,
    merchantId: ctx.merchantId,
    plan,
    shopper,
    status: 'ACTIVE',
    currency: opening.currency,
    quantity: opening.quantity,
    overrideRecurringChargeMinor: opening.overrideRecurringChargeMinor ?? null,
    overrideTrialPeriodDays: opening.overrideTrialPeriodDays ?? null,
    overrideInitialChargeMinor: opening.overrideInitialChargeMinor ?? null,
    softDescriptor: opening.softDescriptor ?? null,
    descriptorPhoneNumber: opening.descriptorPhoneNumber ?? null,
    autoRenew: true,
    card: payer.card ?? null,
    sepaMandate: payer.mandate ?? null,
    vendorSplit: opening.split,
    anchorDate,
    anchorPeriod: 1,
    nextPeriod: 1,
    nextChargeDate: anchorDate,
    chargesMade: 0,
    startedAt: now,
    canceledAt: null,
  });
}

function initialCharge(
  em: EntityManager,
  subscription: Subscription,
  amountMinor: number,
  payment: { cardTransactionId: number } | { sepaDebitId: number },
  now: Date,
): SubscriptionCharge {
  const charge = em.create(SubscriptionCharge, {
    merchantId: subscription.merchantId,
    subscription,
    period: 0,
    kind: 'INITIAL',
    status: 'CHARGED',
    attempt: 1,
    amountMinor,
    currency: subscription.currency,
    dueDate: calendarDate(now),
    chargedAt: now,
    cardTransactionId: 'cardTransactionId' in payment ? payment.cardTransactionId : null,
    sepaDebitId: 'sepaDebitId' in payment ? payment.sepaDebitId : null,
  });
  if (subscription.plan) advanceSchedule(subscription, 0);
  return charge;
}

/** The payer's contact as a card transaction's cardHolderInfo takes it. */
function cardHolderOf(opening: Opening) {
  const billing = opening.paymentSource?.creditCardInfo?.billingContactInfo;
  const fields = {
    firstName: billing?.firstName ?? opening.payerInfo?.firstName,
    lastName: billing?.lastName ?? opening.payerInfo?.lastName,
    zip: billing?.zip ?? opening.payerInfo?.zip,
    email: opening.payerInfo?.email,
    country: billing?.country ?? opening.payerInfo?.country,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** Where the opening goes: its subscription id, and whether a card sale (of a new or stored card) opens it. */
interface OpeningRoute {
  id: number;
  byCard: boolean;
  storedCardId: number | undefined;
}

type Answer<T> = (
  em: EntityManager,
  subscription: Subscription,
  charge: SubscriptionCharge | null,
) => Promise<T>;

async function routeOpening(ctx: MerchantContext, opening: Opening): Promise<OpeningRoute> {
  return inTransaction(ctx.em, async (em) => {
    const known =
      opening.vaultedShopperId === undefined
        ? null
        : await findShopper(em, ctx.merchantId, opening.vaultedShopperId);
    const source = opening.paymentSource;
    const stored =
      known && !source?.creditCardInfo && !sourceScheme(source) ? await storedPayer(em, known) : null;
    const byCard = Boolean(source?.creditCardInfo) || Boolean(stored?.card);
    return { id: await allocateSubscriptionId(em), byCard, storedCardId: stored?.card?.id };
  });
}

/** The first charge debited from the mandate: the debit, its charge row, and its vendors' split. */
async function debitFirstCharge(
  ctx: MerchantContext,
  em: EntityManager,
  opening: Opening,
  subscription: Subscription,
  mandate: NonNullable<Subscription['sepaMandate']>,
  now: Date,
): Promise<SubscriptionCharge> {
  const { shopper } = subscription;
  const debit = await openMandateDebit(
    ctx,
    em,
    mandate,
    {
      shopper,
      payer: { firstName: shopper.firstName ?? '', lastName: shopper.lastName ?? '' },
      amountMinor: opening.firstChargeMinor,
      ...(opening.merchantTransactionId ? { merchantTransactionId: opening.merchantTransactionId } : {}),
    },
    now,
  );
  const debitId = Number(debit.transactionId);
  const charge = initialCharge(em, subscription, opening.firstChargeMinor, { sepaDebitId: debitId }, now);
  await recordChargeSplit(em, ctx.merchantId, debitId, opening.split, opening.firstChargeMinor);
  return charge;
}

/** An opening that asks the acquirer nothing: a mandate, SEPA or ACH (debited if there is a first charge), or no charge. */
async function openWithoutCardSale<T>(
  ctx: MerchantContext,
  opening: Opening,
  id: number,
  answer: Answer<T>,
): Promise<T> {
  return inTransaction(ctx.em, async (em) => {
    const now = await callNow(ctx, em);
    const shopper = opening.vaultedShopperId
      ? await findShopper(em, ctx.merchantId, opening.vaultedShopperId)
      : newShopper(em, ctx.merchantId, opening.payerInfo ?? {});
    const payer = await resolvePayer(ctx, em, shopper, opening.paymentSource, now);
    if (payer.mandate)
      requireDebitTerms(payer.mandate.scheme, {
        currency: opening.currency,
        frequency: opening.plan?.chargeFrequency,
      });
    const subscription = newSubscription(em, ctx, id, opening, shopper, payer, now);
    const charge =
      payer.mandate && opening.firstChargeMinor > 0
        ? await debitFirstCharge(ctx, em, opening, subscription, payer.mandate, now)
        : null;
    await em.flush();
    const result = await answer(em, subscription, charge);
    await ctx.keyed?.record(em, result);
    return result;
  });
}

/**
 * An opening by card sale (or, verifyOnly, an authorization of zero): runSale commits the shopper, the
 * vaulted card, the subscription and its charge row with the sale.
 */
async function openByCardSale<T>(
  ctx: MerchantContext,
  opening: Opening,
  route: OpeningRoute,
  verifyOnly: boolean,
  answer: Answer<T>,
): Promise<T> {
  const cardInfo = opening.paymentSource?.creditCardInfo;
  return runSale(
    ctx,
    {
      cardTransactionType: verifyOnly ? 'AUTH_ONLY' : 'AUTH_CAPTURE',
      amount: minorToDecimal(opening.firstChargeMinor, opening.currency),
      currency: opening.currency,
      ...(cardInfo?.creditCard ? { creditCard: cardInfo.creditCard } : {}),
      ...(cardInfo?.pfToken ? { pfToken: cardInfo.pfToken } : {}),
      ...(opening.vaultedShopperId ? { vaultedShopperId: opening.vaultedShopperId } : {}),
      cardHolderInfo: cardHolderOf(opening),
      ...(opening.softDescriptor ? { softDescriptor: opening.softDescriptor } : {}),
      ...(opening.merchantTransactionId ? { merchantTransactionId: opening.merchantTransactionId } : {}),
    },
    {
      ...(route.storedCardId ? { cardId: route.storedCardId } : {}),
      eventParameters: {
        subscriptionId: route.id,
        ...(opening.plan ? { contractId: opening.plan.id, contractName: opening.plan.name } : {}),
      },
    },
    async (em, sale) => {
      const now = await callNow(ctx, em);
      const [row] = await executeParameterized<{ card_id: string }>(em, cardOfSale, [sale.transactionId]);
      const shopper = await em.findOneOrFail(Shopper, { id: sale.shopperId, merchantId: ctx.merchantId });
      if (!opening.vaultedShopperId && opening.payerInfo)
        Object.assign(shopper, pickFields(opening.payerInfo));
      const card = await em.findOneOrFail(StoredCard, { id: Number(row?.card_id), shopper });
      if (cardInfo?.billingContactInfo) card.billingContact = cardInfo.billingContactInfo;
      const subscription = newSubscription(em, ctx, route.id, opening, shopper, { card }, now);
      const charge = verifyOnly
        ? null
        : initialCharge(
            em,
            subscription,
            opening.firstChargeMinor,
            { cardTransactionId: sale.transactionId },
            now,
          );
      await em.flush();
      if (charge)
        await recordChargeSplit(
          em,
          ctx.merchantId,
          sale.transactionId,
          opening.split,
          opening.firstChargeMinor,
        );
      return answer(em, subscription, charge);
    },
  );
}

/**
 * Creates a subscription and makes its first charge, or none (a trial, a first amount of 0). A card charge
 * goes through runSale: the shopper, the vaulted card, the subscription and its charge row commit
 * with the sale, or nothing does (a decline leaves no subscription). A bank debit (SEPA or ACH), or no
 * charge at all, commits in one transaction. `answer` builds the response in that transaction; a keyed call records it.
 */
export async function openSubscription<T>(
  ctx: MerchantContext,
  opening: Opening,
  answer: Answer<T>,
): Promise<T> {
  const route = await routeOpening(ctx, opening);
  // A card subscription's trial starts with an authorization of zero (the card is checked, nothing is held);
  // a card subscription without a trial whose first period is free asks the acquirer nothing.
  const verifyOnly = opening.firstChargeMinor === 0 && opening.trialDays > 0;
  if (!route.byCard || (opening.firstChargeMinor === 0 && !verifyOnly))
    return openWithoutCardSale(ctx, opening, route.id, answer);
  return openByCardSale(ctx, opening, route, verifyOnly, answer);
}
