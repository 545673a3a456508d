import { issueCallerInput, revokeCallerInput, rotateCallerInput } from '@paywire/contracts';
import { adminProcedure, callerProcedure, router } from '../trpc.ts';
import {
  issueCallerCredential,
  listCallerCredentials,
  revokeCallerCredentials,
  rotateCallerCredential,
} from './service.ts';

/** Credential management, for admin callers only (the operator CLI uses the same service code). */
export const callersRouter = router({
  /** Who the credential says the caller is: a service checks its configuration with it when it starts. */
  whoami: callerProcedure.query(({ ctx }) => ({
    name: ctx.caller.name,
    scope: ctx.caller.scope,
    merchantId: ctx.caller.merchantId,
  })),
  list: adminProcedure.query(({ ctx }) => listCallerCredentials(ctx.em)),
  issue: adminProcedure
    .input(issueCallerInput)
    .mutation(({ ctx, input }) => issueCallerCredential(ctx.em, input, ctx.origin)),
  rotate: adminProcedure
    .input(rotateCallerInput)
    .mutation(({ ctx, input }) => rotateCallerCredential(ctx.em, input, ctx.origin)),
  revoke: adminProcedure
    .input(revokeCallerInput)
    .mutation(({ ctx, input }) => revokeCallerCredentials(ctx.em, input, ctx.origin)),
});
