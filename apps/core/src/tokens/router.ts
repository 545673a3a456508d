import { bindTokenInput } from '@paywire/contracts';
import { merchantProcedure, publicProcedure, router } from '../trpc.ts';
import { bindToken, createToken } from './service.ts';

export const tokensRouter = router({
  create: merchantProcedure.mutation(async ({ ctx }) => ({ token: await createToken(ctx) })),
  /** Public: the hosted fields page has no merchant credentials; the token is the credential. */
  bind: publicProcedure.input(bindTokenInput).mutation(({ ctx, input }) => bindToken(ctx, input)),
});
