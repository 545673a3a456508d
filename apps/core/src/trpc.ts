import { statusOf } from '@paywire/contracts';
import { initTRPC, TRPCError } from '@trpc/server';
import { middlewareMarker } from '@trpc/server/unstable-core-do-not-import';
import type { CallContext } from './context.ts';
import { publicErrorBody } from './errors.ts';
import { runIdempotently } from './idempotency/middleware.ts';

const t = initTRPC.context<CallContext>().create({
  // Clients read `data.paywire`, the interface's own error body; the HTTP status follows it. Stacks and
  // raw messages of unexpected errors never leave core.
  errorFormatter({ shape, error, input }) {
    const paywire = publicErrorBody(error, input);
    const httpStatus = statusOf(paywire);
    return {
      ...shape,
      message: paywire.message[0]?.description ?? 'error',
      data: { code: shape.data.code, httpStatus, path: shape.data.path, paywire },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;

const actingForMerchant = t.procedure.use(({ ctx, next }) => {
  if (ctx.merchantId === null)
    throw new TRPCError({ code: 'UNAUTHORIZED', message: 'no authenticated merchant' });
  return next({ ctx: { ...ctx, merchantId: ctx.merchantId } });
});

/**
 * Procedures that act for a merchant: the facade passes the merchant it authenticated. A mutation that
 * carries an idempotency key runs exactly once per key (idempotency/middleware.ts): one mechanism for
 * every present and future write.
 */
export const merchantProcedure = actingForMerchant.use(({ ctx, next, type, path, getRawInput }) => {
  const { idempotency } = ctx;
  if (type !== 'mutation' || !idempotency) return next();
  return runIdempotently({ ...ctx, idempotency }, path, getRawInput, {
    proceed: (em) => next({ ctx: { em } }),
    // tRPC has no public way for a middleware to answer without its resolver; a replay must not run it.
    replay: (data) => ({ ok: true as const, data, marker: middlewareMarker }),
  });
});
