import { bindTokenInput, tokenInput } from '@paywire/contracts';
import { merchantProcedure, publicProcedure, router } from '../trpc.ts';
import { bindToken, createToken, tokenState } from './service.ts';

export const tokensRouter = router({
  create: merchantProcedure.mutation(async ({ ctx }) => ({ token: await createToken(ctx) })),
  /** Public: the hosted fields page has no merchant credentials; the token is the credential. */
  bind: publicProcedure.input(bindTokenInput).mutation(({ ctx, input }) => bindToken(ctx, input)),
  /** Public, for the hosted fields page: it shows no form for a token that cannot be used. */
  status: publicProcedure.input(tokenInput).query(({ ctx, input }) => tokenState(ctx, input.token)),
});
