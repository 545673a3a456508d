import { bindTokenInput, formOpeningInput, prefillTokenInput } from '@paywire/contracts';
import { merchantProcedure, publicProcedure, router } from '../trpc.ts';
import { bindToken, createToken, openForm, prefillToken } from './service.ts';

export const tokensRouter = router({
  create: merchantProcedure.mutation(async ({ ctx }) => ({ token: await createToken(ctx) })),
  prefill: merchantProcedure
    .input(prefillTokenInput)
    .mutation(async ({ ctx, input }) => ({ token: await prefillToken(ctx, input) })),
  /** Public: the hosted fields page has no merchant credentials; the token is the credential. */
  bind: publicProcedure.input(bindTokenInput).mutation(({ ctx, input }) => bindToken(ctx, input)),
  /** Public, for the hosted fields page: no form for a token that cannot be used, or framed elsewhere. */
  openForm: publicProcedure.input(formOpeningInput).mutation(({ ctx, input }) => openForm(ctx, input)),
});
