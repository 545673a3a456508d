import { createTransactionInput, transactionIdInput, updateTransactionInput } from '@paywire/contracts';
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
});
