import {
  altTransactionIdInput,
  createAltTransactionInput,
  mandateTextInput,
  transactionPreNotificationInput,
} from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { createAltTransaction, getAltTransaction } from './alt-transactions.ts';
import { getMandateText, getPreNotification } from './translations.ts';

export const sepaRouter = router({
  create: merchantProcedure
    .input(createAltTransactionInput)
    .mutation(({ ctx, input }) => createAltTransaction(ctx, input)),
  get: merchantProcedure
    .input(altTransactionIdInput)
    .query(({ ctx, input }) => getAltTransaction(ctx, input)),
  preNotification: merchantProcedure
    .input(transactionPreNotificationInput)
    .query(({ ctx, input }) => getPreNotification(ctx, input)),
  mandateText: merchantProcedure.input(mandateTextInput).query(({ input }) => getMandateText(input)),
});
