import { refundInput, transactionIdInput } from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { cancelPendingRefundsOf, refundPayment } from './service.ts';

export const refundsRouter = router({
  // Card transactions and SEPA debits alike (ids from one sequence).
  create: merchantProcedure
    .meta({ phased: true })
    .input(refundInput)
    .mutation(({ ctx, input }) => refundPayment(ctx, input)),
  cancelPending: merchantProcedure
    .meta({ phased: true })
    .input(transactionIdInput)
    .mutation(({ ctx, input }) => cancelPendingRefundsOf(ctx, input)),
});
