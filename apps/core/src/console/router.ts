import {
  consoleSessionInput,
  consoleSignInInput,
  dashboardInput,
  transactionSearchInput,
} from '@paywire/contracts';
import { merchantProcedure, publicProcedure, router } from '../trpc.ts';
import { dashboard, searchCardTransactions } from './reads.ts';
import { resume, signIn, signOut } from './sessions.ts';

/**
 * The merchant console's sessions (the facade's /console/api keeps the token in a cookie) and its two reads;
 * what else the console does goes through the public interface's procedures.
 */
export const consoleRouter = router({
  /** A mutation, so the password travels in the body and never in a URL or an access log. */
  signIn: publicProcedure.input(consoleSignInInput).mutation(({ ctx, input }) => signIn(ctx, input)),
  /** A mutation: it restarts the session's idle time. */
  resume: publicProcedure.input(consoleSessionInput).mutation(({ ctx, input }) => resume(ctx, input.token)),
  signOut: publicProcedure.input(consoleSessionInput).mutation(({ ctx, input }) => signOut(ctx, input.token)),
  searchTransactions: merchantProcedure
    .input(transactionSearchInput)
    .query(({ ctx, input }) => searchCardTransactions(ctx, input)),
  dashboard: merchantProcedure.input(dashboardInput).query(({ ctx, input }) => dashboard(ctx, input.days)),
});
