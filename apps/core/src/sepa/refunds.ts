import type { Refund, refundInput } from '@paywire/contracts';
import type { z } from 'zod';
import { refundTransaction } from '../cards/service.ts';
import type { MerchantContext } from '../context.ts';
import { isCardTransaction, refundSepaDebit } from './service.ts';

/**
 * The refund endpoints serve every payment: card transactions and SEPA debits share one id sequence, so
 * an id is one or the other. A card transaction is refunded as one; anything else is tried as a debit
 * (which answers TRANSACTION_NOT_FOUND when it is not one either).
 */
export async function refundPayment(
  ctx: MerchantContext,
  input: z.output<typeof refundInput>,
): Promise<Refund> {
  return (await isCardTransaction(ctx, input.transactionId))
    ? refundTransaction(ctx, input)
    : refundSepaDebit(ctx, input);
}
