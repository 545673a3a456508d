import { bindTokenInput, formOpeningInput } from '@paywire/contracts';
import { merchantProcedure, publicProcedure, router } from '../trpc.ts';
import { bindToken, createToken, openForm } from './service.ts';

export const tokensRouter = router({
  create: merchantProcedure.mutation(async ({ ctx }) => ({ token: await createToken(ctx) })),
  /** Public: the hosted fields page has no merchant credentials; the token is the credential. */
  bind: publicProcedure.input(bindTokenInput).mutation(({ ctx, input }) => bindToken(ctx, input)),
  /** Public, for the hosted fields page: no form for a token that cannot be used, or framed elsewhere. */
  openForm: publicProcedure.input(formOpeningInput).mutation(({ ctx, input }) => openForm(ctx, input)),
});
