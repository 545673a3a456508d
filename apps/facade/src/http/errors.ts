import {
  DomainError,
  type ErrorBody,
  type ErrorName,
  errorMessage,
  statusOf,
  ValidationFailure,
} from '@paywire/contracts';
import type { Logger } from '@paywire/observability';
import { XmlInputError } from '@paywire/xml';
import { TRPCClientError } from '@trpc/client';
import type { Middleware } from 'koa';
import { xmlShapes } from '../xml-shapes.ts';
import { loggablePath, type RequestState } from './observe.ts';
import { respond } from './respond.ts';

/** The error body of one message. */
export const single = (name: ErrorName, description: string, property?: string): ErrorBody => ({
  message: [errorMessage(name, description, property ? { name: property } : undefined)],
});

interface HttpError {
  status?: number;
  expose?: boolean;
  type?: string;
}

/** Transport failures that mean core could not be reached (the call never got an answer). */
const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** The transport error code when a core call failed without an answer from core. */
function unreachableCore(error: unknown): string | undefined {
  if (!(error instanceof TRPCClientError) || error.data !== undefined) return undefined;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && unreachableCodes.has(code) ? code : undefined;
}

/** Seconds a client is asked to wait when core is unavailable: about a restart's or a failover's time. */
const retryAfterSeconds = 5;
const unreachableLogIntervalMs = 10_000;

/** The public body for anything thrown while serving a request; undefined means unexpected. */
function errorBody(error: unknown): ErrorBody | undefined {
  if (unreachableCore(error))
    return single(
      'SERVICE_UNAVAILABLE',
      'the service is temporarily unavailable; retry after the delay given',
    );
  if (error instanceof DomainError) return { message: [error.toMessage()] };
  if (error instanceof ValidationFailure) return { message: error.messages };
  if (error instanceof XmlInputError)
    return single('VALIDATION_GENERAL_FAILURE', `body: ${error.message}`, error.property ?? 'body');
  if (error instanceof TRPCClientError) return (error.data as { paywire?: ErrorBody } | undefined)?.paywire;
  const { status, type } = (error ?? {}) as HttpError;
  if (status === 413) return single('REQUEST_ENTITY_TOO_LARGE', 'the request body exceeds 1 MiB');
  if (status === 415) return single('UNSUPPORTED_MEDIA_TYPE', 'the request body encoding is not supported');
  // koa-bodyparser's parse failures: a SyntaxError with status 400, or a raw-body error with a type.
  if (status === 400) {
    const what =
      error instanceof SyntaxError ? 'is not valid JSON' : `could not be read (${type ?? 'bad request'})`;
    return single('VALIDATION_GENERAL_FAILURE', `body: ${what}`, 'body');
  }
  return undefined;
}

/**
 * First in the chain: every failure leaves in the interface's error shape and the request's format.
 * Unexpected errors are logged with their cause and answered without internals (Koa's expose rule).
 */
export function renderErrors(log: Logger): Middleware<RequestState> {
  // Core unreachable fails every request alike: one line per interval with a count, not one per request.
  let unreachableSince: { at: number; count: number } | undefined;
  const noteUnreachable = (code: string) => {
    const now = Date.now();
    if (unreachableSince && now - unreachableSince.at < unreachableLogIntervalMs) {
      unreachableSince.count++;
      return;
    }
    log.error({ code, failedRequestsSinceLastLine: unreachableSince?.count ?? 0 }, 'core unreachable');
    unreachableSince = { at: now, count: 1 };
  };
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new DomainError('RESOURCE_NOT_FOUND', `no resource at ${ctx.method} ${ctx.path}`);
      }
      if (ctx.method === 'OPTIONS' && ctx.status === 200 && ctx.body == null) ctx.status = 204; // Allow says it all
      if (ctx.status === 405 && ctx.body === undefined) {
        throw new DomainError('INVALID_HTTP_METHOD', `${ctx.method} is not allowed on ${ctx.path}`);
      }
    } catch (error) {
      const unreachable = unreachableCore(error);
      if (unreachable) noteUnreachable(unreachable);
      let body = errorBody(error);
      if (!body) {
        ctx.state.log.error({ method: ctx.method, path: loggablePath(ctx.path), error }, 'unexpected error');
        body = single('INTERNAL_ERROR', 'an unexpected error occurred; it has been logged');
      }
      const status = statusOf(body);
      if (status === 401 && !ctx.state.viaConsole)
        ctx.set('WWW-Authenticate', 'Basic realm="Paywire", charset="UTF-8"');
      if (status === 503) ctx.set('Retry-After', String(retryAfterSeconds));
      respond(ctx, status, body, xmlShapes.messages);
    }
  };
}
