import { accountUpdateBatchIdInput, createAccountUpdateBatchInput } from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { retrieveBatch, submitBatch } from './service.ts';

/** The account updater (docs/account-updater.md): the original's Create and Retrieve Account Updater. */
export const accountUpdaterRouter = router({
  submitBatch: merchantProcedure
    .input(createAccountUpdateBatchInput)
    .mutation(({ ctx, input }) => submitBatch(ctx, input)),
  retrieveBatch: merchantProcedure
    .input(accountUpdateBatchIdInput)
    .query(({ ctx, input }) => retrieveBatch(ctx, input.accountUpdateBatchId)),
});
