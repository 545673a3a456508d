import { type CallerScope, DomainError, type ErrorBody, statusOf } from '@paywire/contracts';
import { inSpan, SpanKind, SpanStatusCode } from '@paywire/observability';
import { initTRPC, TRPCError } from '@trpc/server';
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { CardDeclined } from './cards/events.ts';
import type { KeyedCall, RequestContext } from './context.ts';
import { publicErrorBody } from './errors.ts';
import { runIdempotently } from './idempotency/middleware.ts';
import { declines, procedureDuration } from './metrics.ts';

/** The `data` of every error core answers: clients read `paywire`, the interface's own error body. */
function errorData(code: TRPC_ERROR_CODE_KEY, paywire: ErrorBody, path: string | undefined) {
  return { code, httpStatus: statusOf(paywire), path, paywire };
}

/** A procedure that calls an outside party declares it: a keyed call then runs in phases (idempotency). */
export interface ProcedureMeta {
  phased?: boolean;
}

const t = initTRPC
  .context<RequestContext>()
  .meta<ProcedureMeta>()
  .create({
    // The HTTP status follows the interface's error body. Stacks and raw messages of unexpected errors never
    // leave core.
    errorFormatter({ shape, error, input }) {
      const paywire = publicErrorBody(error, input);
      return {
        ...shape,
        message: paywire.message[0]?.description ?? 'error',
        data: errorData(shape.data.code, paywire, shape.data.path),
      };
    },
  });

/**
 * The error envelope of a call refused before tRPC reads it (server.ts), the same shape the formatter
 * gives every other error.
 */
export function refusalEnvelope(refusal: DomainError, code: TRPC_ERROR_CODE_KEY, path: string) {
  return {
    error: {
      message: refusal.message,
      code: TRPC_ERROR_CODES_BY_KEY[code],
      data: errorData(code, { message: [refusal.toMessage()] }, path),
    },
  };
}

const forbidden = (description: string) =>
  new TRPCError({
    code: 'FORBIDDEN',
    message: description,
    cause: new DomainError('FORBIDDEN', description),
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every procedure is timed and counted by outcome, and logged with the request id the facade sent; a
 * card decline is counted by its reason.
 */
const observed = t.procedure.use(async ({ ctx, next, path, type }) => {
  const started = performance.now();
  const span = {
    kind: SpanKind.SERVER,
    parent: ctx.traceParent,
    attributes: { requestId: ctx.requestId ?? '' },
  };
  const result = await inSpan('paywire-core', path, span, async (current) => {
    const result = await next();
    if (!result.ok) current?.setStatus({ code: SpanStatusCode.ERROR, message: result.error.code });
    return result;
  });
  const seconds = (performance.now() - started) / 1000;
  const outcome = result.ok ? 'ok' : result.error.code;
  procedureDuration.observe({ procedure: path, type, outcome }, seconds);
  if (!result.ok && result.error.cause instanceof CardDeclined)
    declines.inc({ reason: result.error.cause.errorName });
  // debug: the facade's request line already records every call's request at info
  ctx.log.debug({ procedure: path, type, outcome, ms: Math.round(seconds * 1000) }, 'call');
  return result;
});

/** Every call reaches a procedure authenticated (server.ts); these check what its credential allows. */
const forScope = (scope: CallerScope, description: string) =>
  observed.use(({ ctx, next }) => {
    if (ctx.caller.scope !== scope) throw forbidden(description);
    return next();
  });

/**
 * The public interface's calls that act for no merchant (a login, the hosted fields page's token calls):
 * only the facade, whose credential acts for any merchant, makes them.
 */
export const publicProcedure = forScope('any-merchant', 'only the facade may call this procedure');

/** Any authenticated caller, whatever its scope. */
export const callerProcedure = observed;

/** Caller credential and processor account management: admin credentials only. */
export const adminProcedure = forScope(
  'admin',
  'only an admin credential may manage caller credentials and processor accounts',
);

const actingForMerchant = observed.use(({ ctx, next, type }) => {
  if (ctx.caller.scope === 'admin')
    throw forbidden('an admin credential may only manage caller credentials and processor accounts');
  if (ctx.caller.scope === 'read-only' && type !== 'query')
    throw forbidden('a read-only credential may only query');
  if (ctx.merchantId === null)
    throw new TRPCError({ code: 'UNAUTHORIZED', message: 'no authenticated merchant' });
  // tRPC merges what is given into the context: only the narrowed field, not a copy of the whole
  return next({ ctx: { merchantId: ctx.merchantId } });
});

/** What the keyed middleware hands down: the call's unit of work, and a replay's recorded answer. */
interface KeyedOverrides {
  em: RequestContext['em'];
  keyed: KeyedCall | undefined;
  replay: { data: unknown } | undefined;
}

const keyed = actingForMerchant.use(({ ctx, next, type, path, getRawInput, meta }) => {
  const { idempotency } = ctx;
  if (type !== 'mutation' || !idempotency) return next();
  const proceed = (overrides: KeyedOverrides) => next({ ctx: overrides });
  return runIdempotently({ ...ctx, idempotency }, path, getRawInput, {
    phased: meta?.phased === true,
    proceed: (em, keyed) => proceed({ em, keyed, replay: undefined }),
    // tRPC's public API lets a middleware answer only through the resolver: the recorded answer goes down
    // to it, and the mutation answers it without running (answeringReplays).
    replay: (data) => proceed({ em: ctx.em, keyed: undefined, replay: { data } }),
  });
});

/** The builder calls that return a builder: each keeps its mutations answering replays. */
const chained = ['input', 'output', 'meta', 'use', 'concat', 'unstable_concat', 'errors'] as const;

type ReplayResolver = (opts: { ctx: { replay?: KeyedOverrides['replay'] } }) => unknown;

/**
 * A procedure builder whose mutations, however the builder is chained (`.meta()`, `.input()` ...), answer a
 * replayed call with its recorded answer instead of running their resolver: our own keyed-mutation builder,
 * on tRPC's public builder API (every builder call returns a new plain builder).
 */
function answeringReplays<B extends object>(builder: B): B {
  const methods = builder as unknown as Record<string, (...args: unknown[]) => object>;
  const wrapped: Record<string, unknown> = { ...methods };
  for (const name of chained) {
    const method = methods[name];
    if (method) wrapped[name] = (...args: unknown[]) => answeringReplays(method(...args));
  }
  const mutation = methods.mutation as (resolver: ReplayResolver) => object;
  wrapped.mutation = (resolve: ReplayResolver) =>
    mutation((opts) => (opts.ctx.replay ? opts.ctx.replay.data : resolve(opts)));
  return wrapped as B;
}

/**
 * Procedures that act for a merchant: the one the facade authenticated, or a bound credential's own. A
 * mutation that carries an idempotency key runs exactly once per key (idempotency/middleware.ts): one
 * mechanism for every present and future write.
 */
export const merchantProcedure = answeringReplays(keyed);

/**
 * A merchant's secrets (the IPN secret): the credentials that act for a merchant, not a read-only one, which
 * may read the merchant's data but needs no secret to do so (docs/security.md, IPN secrets).
 */
export const secretReadingProcedure = merchantProcedure.use(({ ctx, next }) => {
  if (ctx.caller.scope === 'read-only') throw forbidden('a read-only credential may not read secrets');
  return next();
});
