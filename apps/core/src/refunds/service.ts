import type { Refund, refundInput } from '@paywire/contracts';
import type { z } from 'zod';
import { CardTransaction } from '../cards/entities.ts';
import { refundTransaction } from '../cards/lifecycle.ts';
import type { MerchantContext } from '../context.ts';
import { isCardTransaction, refundSepaDebit } from '../sepa/service.ts';

/**
 * The refund endpoints serve every payment: card transactions and SEPA debits share one id sequence, and
 * merchantTransactionIds are unique across both, so either id is one or the other. A card transaction is refunded as one; anything else is tried as a debit
 * (which answers TRANSACTION_NOT_FOUND when it is not one either).
 */
export async function refundPayment(
  ctx: MerchantContext,
  input: z.output<typeof refundInput>,
): Promise<Refund> {
  const isCard =
    input.transactionId === undefined
      ? (await ctx.em.count(CardTransaction, {
          merchantTransactionId: input.merchantTransactionId,
          merchantId: ctx.merchantId,
        })) > 0
      : await isCardTransaction(ctx, input.transactionId);
  return isCard ? refundTransaction(ctx, input) : refundSepaDebit(ctx, input);
}
