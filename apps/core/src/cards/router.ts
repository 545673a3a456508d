import {
  createTransactionInput,
  refundInput,
  transactionIdInput,
  updateTransactionInput,
} from '@paywire/contracts';
import { refundPayment } from '../sepa/refunds.ts';
import { merchantProcedure, router } from '../trpc.ts';
import { createTransaction, getTransaction, updateTransaction } from './service.ts';

export const cardsRouter = router({
  create: merchantProcedure
    .input(createTransactionInput)
    .mutation(({ ctx, input }) => createTransaction(ctx, input)),
  update: merchantProcedure
    .input(updateTransactionInput)
    .mutation(({ ctx, input }) => updateTransaction(ctx, input)),
  get: merchantProcedure.input(transactionIdInput).query(({ ctx, input }) => getTransaction(ctx, input)),
  // Card transactions and SEPA debits alike (ids from one sequence).
  refund: merchantProcedure.input(refundInput).mutation(({ ctx, input }) => refundPayment(ctx, input)),
});
