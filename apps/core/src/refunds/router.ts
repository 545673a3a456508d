import { refundInput, transactionIdInput } from '@paywire/contracts';
import { cancelPendingRefunds } from '../cards/lifecycle.ts';
import { merchantProcedure, router } from '../trpc.ts';
import { refundPayment } from './service.ts';

export const refundsRouter = router({
  // Card transactions and SEPA debits alike (ids from one sequence).
  create: merchantProcedure
    .meta({ phased: true })
    .input(refundInput)
    .mutation(({ ctx, input }) => refundPayment(ctx, input)),
  // Only card refunds can be pending: a SEPA debit's refund is done at once.
  cancelPending: merchantProcedure
    .meta({ phased: true })
    .input(transactionIdInput)
    .mutation(({ ctx, input }) => cancelPendingRefunds(ctx, input)),
});
