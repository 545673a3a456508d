import { credentialsInput } from '@paywire/contracts';
import { publicProcedure, router } from '../trpc.ts';
import { authenticate } from './service.ts';

export const merchantsRouter = router({
  /** A mutation, so the password travels in the body and never in a URL or an access log. */
  authenticate: publicProcedure.input(credentialsInput).mutation(async ({ ctx, input }) => ({
    merchantId: await authenticate(ctx.em, input.username, input.password),
  })),
});
