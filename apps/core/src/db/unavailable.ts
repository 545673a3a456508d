/**
 * Whether an error means the database could not be reached or was lost mid-statement (a restart, a failover,
 * a primary killed), as opposed to a statement it refused. Such a failure is "not now": the merchant gets
 * 503 with Retry-After, never 500, and a keyed call's outcome is left to what committed (the key replays it)
 * or to recovery (the attempt it left), never to a blind replay.
 */

/** Connection-level failures of the socket to PostgreSQL. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL's own: class 08 (connection exception, whose codes hold letters too: 08P01, which PgBouncer
 * answers when its server connection crashed or its logins to the server fail), 57P01-57P03 (shut down by
 * an administrator or a crash, or not accepting connections yet: a restart or a promotion), 25006
 * (read-only: a standby answered).
 */
const serverCodes = /^(08[0-9A-Z]{3}|57P0[123]|25006)$/;

/**
 * pg's messages, which carry no code, for a connection that ended under it, and for a statement or a
 * connection that went unanswered past core's answer timeout (wire.ts): the server may have done it, so its
 * outcome is unknown, as when the connection is lost.
 */
const lostConnection =
  /^Connection terminated|^Client has encountered a connection error|^Connection ended|^Query read timeout|^timeout exceeded when trying to connect/;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 8) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (socketCodes.has(code) || serverCodes.test(code))) return true;
  if (lostConnection.test(error.message)) return true;
  if (
    error instanceof AggregateError &&
    error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))
  )
    return true;
  return isDatabaseUnavailable(error.cause, depth + 1);
}
