import { credentialGenerationsInput, credentialsInput, saveMerchantInput } from '@paywire/contracts';
import { adminProcedure, publicProcedure, router } from '../trpc.ts';
import { authenticate, credentialGenerations, upsertMerchant } from './service.ts';

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
  /** `npm run merchant -- create`: a merchant made or its password set, audited as the admin caller's. */
  save: adminProcedure.input(saveMerchantInput).mutation(async ({ ctx, input }) => ({
    id: await upsertMerchant(ctx.em, input.username, input.password, ctx.origin, ctx.passwordCost),
  })),
});
