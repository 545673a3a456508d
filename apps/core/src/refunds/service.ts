import type { Refund, refundInput } from '@paywire/contracts';
import type { z } from 'zod';
import { isCardTransaction, refundTransaction } from '../cards/lifecycle.ts';
import type { MerchantContext } from '../context.ts';
import { refundSepaDebit } from '../sepa/service.ts';

/**
 * The one refund entry point, for every payment: card transactions and SEPA debits share one id sequence,
 * and merchantTransactionIds are unique across both, so either id names one or the other. A card
 * transaction is refunded as one; anything else is tried as a debit (which answers TRANSACTION_NOT_FOUND
 * when it is not one either). Cards and SEPA know nothing of each other; only this module knows both.
 */
export async function refundPayment(
  ctx: MerchantContext,
  input: z.output<typeof refundInput>,
): Promise<Refund> {
  return (await isCardTransaction(ctx, input)) ? refundTransaction(ctx, input) : refundSepaDebit(ctx, input);
}
