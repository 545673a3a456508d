import type { RecoveredAnswer } from '../payments/recovery.ts';
import { refundAnswer } from '../payments/refund-answer.ts';
import { CardTransaction, Refund } from './entities.ts';
import { present } from './presentation.ts';

/**
 * What a capture, reversal or refund that recovery completed would have answered its keyed caller: the
 * transaction as it stands, or the refund the attempt stood for (a refund of an uncaptured authorization
 * reverses it, and still answers as a refund). The refund's date is the day its row was written.
 */
export const recoveredAnswer: RecoveredAnswer = async (em, change) => {
  const transaction = await em.findOneOrFail(
    CardTransaction,
    { id: change.transactionId, merchantId: change.merchantId },
    { populate: ['card', 'shopper'] },
  );
  const refund = await em.findOne(Refund, {
    attemptReference: change.reference,
    merchantId: change.merchantId,
  });
  if (refund)
    return refundAnswer(
      refund,
      transaction.id,
      transaction.currency,
      refund.createdAt,
      refund.status === 'PENDING' ? 'received' : 'done',
    );
  return present(transaction);
};
