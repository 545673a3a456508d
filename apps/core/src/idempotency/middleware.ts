import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  checkIdempotencyKey,
  DomainError,
  type IdempotentRequest,
  idempotencyRetentionSeconds,
} from '@paywire/contracts';
import { TRPCError } from '@trpc/server';
import { addSeconds, callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { isDomainFailure, publicErrorBody, ReplayedFailure } from '../errors.ts';
import { IdempotencyRecord, type StoredOutcome } from './entities.ts';

type Result = { ok: true; data: unknown } | { ok: false; error: TRPCError };

/** Carries a failed result out of the savepoint so the savepoint rolls back. */
class FailedInside<R> extends Error {
  readonly result: R;

  constructor(result: R) {
    super('procedure failed');
    this.result = result;
  }
}

function fingerprintOf(request: IdempotentRequest, path: string, input: unknown): string {
  return (
    request.fingerprint ??
    createHash('sha256')
      .update(`${path}\n${JSON.stringify(input ?? null)}`)
      .digest('hex')
  );
}

/** What is kept of a result: successes and the domain's own failures (declines, rules); nothing else. */
function storable(result: Result): StoredOutcome | undefined {
  if (result.ok) return { ok: true, data: result.data };
  return isDomainFailure(result.error)
    ? { ok: false, body: publicErrorBody(result.error, undefined) }
    : undefined;
}

/**
 * Runs a keyed mutation at most once per merchant and key. The record, the procedure's writes and its
 * answer commit in one transaction, so a crash anywhere leaves either all of them or none: a retry gets the
 * first answer or runs afresh, never twice. A transaction-scoped advisory lock tells a concurrent duplicate
 * (409) from a finished one (replay).
 */
export async function runIdempotently<R extends Result>(
  ctx: MerchantContext & { idempotency: IdempotentRequest },
  path: string,
  getRawInput: () => Promise<unknown>,
  run: { proceed: (em: EntityManager) => Promise<R>; replay: (data: unknown) => R },
): Promise<R> {
  const key = checkIdempotencyKey(ctx.idempotency.key);
  const fingerprint = fingerprintOf(ctx.idempotency, path, await getRawInput());
  const { merchantId } = ctx;
  return inTransaction(ctx.em, async (em) => {
    // The merchant's clock rides along with the lock: one round trip fewer for every keyed call.
    const [lock] = await em.execute<{ locked: boolean; offset: string }[]>(
      `select pg_try_advisory_xact_lock(?, hashtext(?)) as locked,
              (select clock_offset_seconds from merchant where id = ?) as "offset"`,
      [merchantId, key, merchantId],
    );
    if (!lock?.locked) {
      throw new DomainError(
        'REQUEST_WITH_SAME_IDEMPOTENCY_KEY_ALREADY_IN_PROGRESS',
        'a request with this Idempotency-Key is still in progress',
      );
    }
    ctx.clockMemo.offsetSeconds = Promise.resolve(Number(lock.offset));
    const now = await callNow(ctx, em);
    const stored = await em.findOne(IdempotencyRecord, { merchantId, key });
    if (stored && stored.expiresAt > now) {
      if (stored.fingerprint !== fingerprint) {
        throw new DomainError(
          'SAME_IDEMPOTENCY_KEY_WAS_ALREADY_IN_USE_WITH_PREVIOUS_DIFFERENT_REQUEST',
          'this Idempotency-Key was used with a different request',
        );
      }
      const answer = JSON.parse(stored.outcome) as StoredOutcome;
      if (answer.ok) return run.replay(answer.data);
      throw new TRPCError({ code: 'BAD_REQUEST', cause: new ReplayedFailure(answer.body) });
    }

    // The procedure runs in a savepoint: a failure undoes its writes but keeps the record of the answer.
    const result = await em
      .transactional((inner) =>
        run.proceed(inner).then((r) => (r.ok ? r : Promise.reject(new FailedInside(r)))),
      )
      .catch((error: unknown) => {
        if (error instanceof FailedInside) return error.result as R;
        throw error;
      });
    const outcome = storable(result);
    if (!outcome) {
      if (result.ok) return result;
      throw result.error; // unexpected: roll everything back, the key stays free for a retry
    }
    const answer = {
      fingerprint,
      procedure: path,
      outcome: JSON.stringify(outcome),
      expiresAt: addSeconds(now, idempotencyRetentionSeconds),
    };
    // A record past retention by the merchant's clock leaves the key free: its row takes the new answer.
    if (stored) em.assign(stored, { ...answer, createdAt: new Date() });
    else em.create(IdempotencyRecord, { merchantId, key, ...answer });
    await em.flush();
    return result;
  });
}
