import {
  DomainError,
  type ErrorBody,
  errorMessage,
  issuesToMessages,
  statusOf,
  ValidationFailure,
} from '@paywire/contracts';
import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import type { CallContext } from './context.ts';

/** The public error body for whatever a procedure threw; causes our code did not expect become INTERNAL_ERROR. */
export function publicErrorBody(error: TRPCError, input: unknown): ErrorBody {
  const { cause } = error;
  if (cause instanceof DomainError) return { message: [cause.toMessage()] };
  if (cause instanceof ValidationFailure) return { message: cause.messages };
  if (cause instanceof ZodError) return { message: issuesToMessages(cause.issues, input) };
  if (error.code === 'UNAUTHORIZED')
    return { message: [errorMessage('UNAUTHORIZED', 'no authenticated merchant')] };
  if (error.code === 'NOT_FOUND') return { message: [errorMessage('RESOURCE_NOT_FOUND', error.message)] };
  return { message: [errorMessage('INTERNAL_ERROR', 'an unexpected error occurred; it has been logged')] };
}

export function isExpected(error: TRPCError): boolean {
  return (
    error.cause instanceof DomainError ||
    error.cause instanceof ValidationFailure ||
    error.cause instanceof ZodError
  );
}

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

/** Procedures that act for a merchant: the facade passes the merchant it authenticated. */
export const merchantProcedure = t.procedure.use(({ ctx, next }) => {
  if (ctx.merchantId === null)
    throw new TRPCError({ code: 'UNAUTHORIZED', message: 'no authenticated merchant' });
  return next({ ctx: { ...ctx, merchantId: ctx.merchantId } });
});
