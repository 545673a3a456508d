import { credentialGenerationsInput, credentialsInput } from '@paywire/contracts';
import { publicProcedure, router } from '../trpc.ts';
import { authenticate, credentialGenerations } from './service.ts';

export const merchantsRouter = router({
  /** A mutation, so the password travels in the body and never in a URL or an access log. */
  authenticate: publicProcedure
    .input(credentialsInput)
    .mutation(({ ctx, input }) => authenticate(ctx, input)),
  /** A mutation only so that a long list of ids travels in the body; it changes nothing. */
  credentialGenerations: publicProcedure
    .input(credentialGenerationsInput)
    .mutation(async ({ ctx, input }) => ({
      generations: await credentialGenerations(ctx.em, input.merchantIds),
    })),
});
