import {
  addProcessorAccountInput,
  disableProcessorAccountInput,
  listProcessorAccountsInput,
  routeProcessorsInput,
} from '@paywire/contracts';
import { adminProcedure, router } from '../../trpc.ts';
import {
  addProcessorAccount,
  disableProcessorAccount,
  listProcessorAccounts,
  routeProcessors,
} from './service.ts';

/** Merchants' processor accounts and routing, for admin callers (the operator CLI runs the same service code). */
export const processorsRouter = router({
  add: adminProcedure
    .input(addProcessorAccountInput)
    .mutation(({ ctx, input }) => addProcessorAccount(ctx.em, ctx.vault, input, ctx.origin)),
  list: adminProcedure
    .input(listProcessorAccountsInput)
    .query(({ ctx, input }) => listProcessorAccounts(ctx.em, ctx.vault, input)),
  disable: adminProcedure
    .input(disableProcessorAccountInput)
    .mutation(({ ctx, input }) => disableProcessorAccount(ctx.em, ctx.vault, input, ctx.origin)),
  route: adminProcedure
    .input(routeProcessorsInput)
    .mutation(({ ctx, input }) => routeProcessors(ctx.em, ctx.vault, input, ctx.origin)),
});
