import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import { DomainError, type Refund, type refundInput, type TransactionIds } from '@paywire/contracts';
import type { z } from 'zod';
import { cancelPendingRefunds, isCardTransaction, refundTransaction } from '../cards/lifecycle.ts';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import type { RefundFollowUp } from '../payments/refund-answer.ts';
import { Subscription, SubscriptionCharge } from '../recurring/entities.ts';
import { cancellationParameters, recordSubscriptionEvent, subscriptionFactsOf } from '../recurring/events.ts';
import { findSepaDebit } from '../sepa/debits.ts';
import { refundSepaDebit } from '../sepa/refunds.ts';

/**
 * The one refund entry point, for every payment: card transactions and SEPA debits share one id sequence,
 * and merchantTransactionIds are unique across both, so either id names one or the other. A card
 * transaction is refunded as one; anything else is tried as a debit (which answers TRANSACTION_NOT_FOUND
 * when it is not one either). Cards and SEPA know nothing of each other; only this module knows both.
 * A refund of a subscription's charge cancels the subscription unless `cancelSubscriptions` is false
 * (the reference's default is true).
 */
export async function refundPayment(
  ctx: MerchantContext,
  input: z.output<typeof refundInput>,
): Promise<Refund> {
  // A card refund the processor only received cancels nothing yet: afterRefundDone does once it is done.
  const followUp: RefundFollowUp | undefined =
    input.cancelSubscriptions === false
      ? undefined
      : (em, paymentId) => cancelChargedSubscription(ctx, em, paymentId);
  if (await isCardTransaction(ctx, input)) return refundTransaction(ctx, input, followUp);
  return refundSepaDebit(ctx, input, followUp);
}

/**
 * Cancel Pending Refund: a card transaction's pending refunds (cards/lifecycle.ts). A SEPA debit's refunds are
 * done at once, so a debit has none to cancel.
 */
export async function cancelPendingRefundsOf(
  ctx: MerchantContext,
  by: TransactionIds,
): Promise<{ refundTransactionIds: string[] }> {
  if (
    by.transactionId !== undefined &&
    !(await isCardTransaction(ctx, by)) &&
    (await findSepaDebit(ctx.em, ctx.merchantId, by.transactionId))
  )
    throw new DomainError('NO_PENDING_REFUND', `transaction ${by.transactionId} has no pending refund`);
  return cancelPendingRefunds(ctx, by);
}

/**
 * Cancels the active or suspended subscription the payment was a charge of, in the refund's own transaction
 * (both commit or neither does), with its Cancellation event (cancelReason REFUND) and the reference's
 * CancellationRefund ("a subscription is cancelled and a refund is processed"), which names the refunded
 * charge as `originalRefNum`.
 */
export async function cancelChargedSubscription(
  ctx: MerchantContext,
  em: EntityManager,
  paymentId: number,
): Promise<void> {
  const charge = await em.findOne(SubscriptionCharge, {
    merchantId: ctx.merchantId,
    $or: [{ cardTransactionId: paymentId }, { sepaDebitId: paymentId }],
  });
  if (!charge) return;
  const subscription = await em.findOne(
    Subscription,
    { id: charge.subscription.id, merchantId: ctx.merchantId, status: { $in: ['ACTIVE', 'SUSPENDED'] } },
    { populate: ['plan', 'shopper'], lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!subscription) return;
  const now = await callNow(ctx, em);
  const facts = subscriptionFactsOf(subscription);
  subscription.status = 'CANCELED';
  subscription.canceledAt = now;
  subscription.nextChargeDate = null;
  await em.flush();
  const parameters = cancellationParameters(facts, now, 'REFUND');
  await recordSubscriptionEvent(ctx, em, 'Cancellation', parameters);
  await recordSubscriptionEvent(ctx, em, 'CancellationRefund', { ...parameters, originalRefNum: paymentId });
}
