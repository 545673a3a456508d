import {
  altTransactionIdInput,
  createAltTransactionInput,
  preNotificationInput,
  refundInput,
} from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { createAltTransaction, getAltTransaction, getPreNotification, refundSepaDebit } from './service.ts';

export const sepaRouter = router({
  create: merchantProcedure
    .input(createAltTransactionInput)
    .mutation(({ ctx, input }) => createAltTransaction(ctx, input)),
  get: merchantProcedure
    .input(altTransactionIdInput)
    .query(({ ctx, input }) => getAltTransaction(ctx, input)),
  preNotification: merchantProcedure
    .input(preNotificationInput)
    .query(({ ctx, input }) => getPreNotification(ctx, input)),
  refund: merchantProcedure.input(refundInput).mutation(({ ctx, input }) => refundSepaDebit(ctx, input)),
});
