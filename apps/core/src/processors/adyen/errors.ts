import { ProcessorRejected, ProcessorUnavailable } from '../processor.ts';
import type { ServiceError } from './checkout.ts';

/** Failures of the connection itself, before a byte of the request was sent: it cannot have arrived. */
const notSentCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The system error codes along fetch's cause chain, including each attempt of a multi-address connect. */
function errorCodes(error: unknown): string[] {
  if (!(error instanceof Error)) return [];
  const own = 'code' in error && typeof error.code === 'string' ? [error.code] : [];
  const attempts = error instanceof AggregateError ? error.errors.flatMap(errorCodes) : [];
  return [...own, ...attempts, ...errorCodes(error.cause)];
}

/** fetch's own message is only "fetch failed": the reason is at the end of its cause chain. */
function innermost(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause === undefined ? error.message : innermost(error.cause);
}

/**
 * A request that got no answer. Only a connection that was never made proves the request did not arrive; a
 * timeout, a reset or anything unrecognised may have reached Adyen, so it must not fail over.
 */
export function noAnswer(path: string, error: unknown, timeoutMs: number): ProcessorUnavailable {
  if (error instanceof Error && error.name === 'TimeoutError')
    return new ProcessorUnavailable(`adyen: no answer to ${path} within ${timeoutMs} ms`, true, {
      cause: error,
    });
  const codes = errorCodes(error);
  const notSent = codes.length > 0 && codes.every((code) => notSentCodes.has(code));
  return new ProcessorUnavailable(`adyen: ${path} failed (${codes[0] ?? innermost(error)})`, !notSent, {
    cause: error,
  });
}

/** Digit runs of three or more hidden, so no card number or security code an answer echoes reaches a log. */
function masked(text: string): string {
  return text.replace(/\d{3,}/g, '***');
}

/**
 * A non-2xx answer. 4xx is Adyen refusing the request (invalid fields, bad credentials: 401/403), never the
 * issuer's decline, which comes as 200; 5xx (and anything else) may have been processed.
 */
export function failedAnswer(path: string, status: number, body: unknown): Error {
  const error = (typeof body === 'object' && body !== null ? body : {}) as ServiceError;
  const detail = [
    error.errorCode && `errorCode ${error.errorCode}`,
    error.errorType,
    error.message && masked(error.message),
  ]
    .filter(Boolean)
    .join(', ');
  const message = `adyen: ${path} answered ${status}${detail ? ` (${detail})` : ''}`;
  if (status >= 400 && status < 500) return new ProcessorRejected(message, status, error.errorCode);
  return new ProcessorUnavailable(message, true);
}
