import {
  createTransactionInput,
  refundInput,
  transactionIdInput,
  updateTransactionInput,
} from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { createTransaction, getTransaction, refundTransaction, updateTransaction } from './service.ts';

export const cardsRouter = router({
  create: merchantProcedure
    .input(createTransactionInput)
    .mutation(({ ctx, input }) => createTransaction(ctx, input)),
  update: merchantProcedure
    .input(updateTransactionInput)
    .mutation(({ ctx, input }) => updateTransaction(ctx, input)),
  get: merchantProcedure
    .input(transactionIdInput)
    .query(({ ctx, input }) => getTransaction(ctx, input.transactionId)),
  refund: merchantProcedure.input(refundInput).mutation(({ ctx, input }) => refundTransaction(ctx, input)),
});
