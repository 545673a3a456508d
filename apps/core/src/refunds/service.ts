import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import type { Refund, refundInput } from '@paywire/contracts';
import type { z } from 'zod';
import { isCardTransaction, refundTransaction } from '../cards/lifecycle.ts';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import type { RefundFollowUp } from '../payments/refund-answer.ts';
import { Subscription, SubscriptionCharge } from '../recurring/entities.ts';
import { cancellationParameters, recordSubscriptionEvent, subscriptionFactsOf } from '../recurring/events.ts';
import { refundSepaDebit } from '../sepa/service.ts';

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
  const followUp: RefundFollowUp | undefined =
    input.cancelSubscriptions === false
      ? undefined
      : (em, paymentId) => cancelChargedSubscription(ctx, em, paymentId);
  if (await isCardTransaction(ctx, input)) return refundTransaction(ctx, input, followUp);
  return refundSepaDebit(ctx, input, followUp);
}

/**
 * Cancels the active or suspended subscription the payment was a charge of, with its Cancellation event
 * (cancelReason REFUND), in the refund's own transaction: both commit or neither does.
 */
async function cancelChargedSubscription(
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
  await recordSubscriptionEvent(ctx, em, 'Cancellation', cancellationParameters(facts, now, 'REFUND'));
}
