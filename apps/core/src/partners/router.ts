import { createConsoleUserInput } from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { createConsoleUser } from './users.ts';

export const partnersRouter = router({
  createUser: merchantProcedure
    .input(createConsoleUserInput)
    .mutation(({ ctx, input }) => createConsoleUser(ctx, input)),
});
