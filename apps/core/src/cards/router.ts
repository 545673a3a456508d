import {
  createTransactionInput,
  refundInput,
  transactionIdInput,
  updateTransactionInput,
} from '@paywire/contracts';
import { refundPayment } from '../refunds/service.ts';
import { merchantProcedure, router } from '../trpc.ts';
import { updateTransaction } from './lifecycle.ts';
import { getTransaction } from './presentation.ts';
import { createTransaction } from './sale.ts';

export const cardsRouter = router({
  create: merchantProcedure
    .meta({ phased: true })
    .input(createTransactionInput)
    .mutation(({ ctx, input }) => createTransaction(ctx, input)),
  update: merchantProcedure
    .meta({ phased: true })
    .input(updateTransactionInput)
    .mutation(({ ctx, input }) => updateTransaction(ctx, input)),
  get: merchantProcedure.input(transactionIdInput).query(({ ctx, input }) => getTransaction(ctx, input)),
  // Card transactions and SEPA debits alike (ids from one sequence).
  refund: merchantProcedure
    .meta({ phased: true })
    .input(refundInput)
    .mutation(({ ctx, input }) => refundPayment(ctx, input)),
});
