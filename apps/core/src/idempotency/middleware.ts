import type { EntityManager } from '@mikro-orm/postgresql';
import {
  checkIdempotencyKey,
  DomainError,
  type IdempotentRequest,
  idempotencyRetentionSeconds,
} from '@paywire/contracts';
import { TRPCError } from '@trpc/server';
import { addSeconds, callNow } from '../clock/clock.ts';
import type { KeyedCall, MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized, executePrepared, sendWithNext } from '../db/wire.ts';
import { isDomainFailure, publicErrorBody, ReplayedFailure } from '../errors.ts';
import { ReportedFailure, recordEvent } from '../ipn/events.ts';
import { type FactsRow, factsOf } from '../merchants/facts.ts';
import { idempotencyOutcomes } from '../metrics.ts';
import type { CardVault } from '../security/card-vault.ts';
import type { StoredOutcome } from './entities.ts';
import {
  beginCall,
  claimKey,
  freeKeyWithoutAttempt,
  recordAnswer,
  recordInFlight,
  recordOutcome,
  renewWithOutcome,
  undoCall,
} from './queries.ts';

type Result = { ok: true; data: unknown } | { ok: false; error: TRPCError };

const inProgress = () => {
  idempotencyOutcomes.inc({ outcome: 'in_progress' });
  return new DomainError(
    'REQUEST_WITH_SAME_IDEMPOTENCY_KEY_ALREADY_IN_PROGRESS',
    'a request with this Idempotency-Key is still in progress',
  );
};

/**
 * What a held claim says: the merchant's now when the key is free (no record, or one past retention), the
 * stored success as JSON text of its data to replay, or the error to answer (a replayed failure, a different
 * request, a call still in flight).
 */
async function readClaim(
  ctx: MerchantContext,
  em: EntityManager,
  claim: (Claim & FactsRow) | undefined,
  fingerprints: Fingerprints,
): Promise<Date | string | TRPCError> {
  if (!claim?.locked) throw inProgress();
  ctx.memo.facts = Promise.resolve(factsOf(claim));
  const now = await callNow(ctx, em);
  // an outcome of null with a fingerprint is a phased call still in flight (0014)
  if (claim.outcome === null && claim.fingerprint !== null) throw inProgress();
  if (claim.outcome === null || !claim.expires_at || new Date(claim.expires_at) <= now) return now;
  // A record from before fingerprints were keyed has none (0011): it replays, as a retry needs. One under a
  // fingerprint key a rotation replaced replays too, until it expires.
  if (claim.fingerprint !== null && !fingerprints.includes(claim.fingerprint)) {
    idempotencyOutcomes.inc({ outcome: 'conflict' });
    throw new DomainError(
      'SAME_IDEMPOTENCY_KEY_WAS_ALREADY_IN_USE_WITH_PREVIOUS_DIFFERENT_REQUEST',
      'this Idempotency-Key was used with a different request',
    );
  }
  const answer = JSON.parse(claim.outcome) as StoredOutcome;
  idempotencyOutcomes.inc({ outcome: 'replay' });
  if (answer.ok) return JSON.stringify(answer.data);
  return new TRPCError({ code: 'BAD_REQUEST', cause: new ReplayedFailure(answer.body) });
}

/** The key's lock and, once it is held, its record. */
interface Claim {
  locked: boolean;
  fingerprint: string | null;
  outcome: string | null;
  expires_at: string | Date | null;
}

/** A request's fingerprints under every live fingerprint key: the first is stored, any one matches. */
type Fingerprints = [string, ...string[]];

/**
 * What is stored to recognise a retry: a keyed hash (the card vault's, from the card key) of the facade's
 * digest of the request, or of the call itself when no digest came. A plain digest of a body holding a
 * card number and CVV would let anyone holding the row test guesses offline; this one needs the key.
 */
function fingerprintsOf(
  vault: CardVault,
  request: IdempotentRequest,
  path: string,
  input: unknown,
): Fingerprints {
  return vault.fingerprints(
    request.fingerprint === undefined
      ? `call:${path}\n${JSON.stringify(input ?? null)}`
      : `request:${request.fingerprint}`,
  );
}

/** What is kept of a result: successes and the domain's own failures (declines, rules); nothing else. */
function storable(result: Result): StoredOutcome | undefined {
  if (result.ok) return { ok: true, data: result.data };
  return isDomainFailure(result.error) && !isTransient(result.error)
    ? { ok: false, body: publicErrorBody(result.error, undefined) }
    : undefined;
}

/**
 * "Not now" rather than "no" (a processor that did not answer): never a key's answer. The key is freed, or
 * stays in flight while its payment attempt is resolved.
 */
function isTransient(error: TRPCError): boolean {
  return error.cause instanceof DomainError && error.cause.errorName === 'SERVICE_UNAVAILABLE';
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
  run: {
    proceed: (em: EntityManager, keyed?: KeyedCall) => Promise<R>;
    replay: (data: unknown) => Promise<R>;
    /** The procedure calls an outside party: it runs its own phases, no transaction held around it. */
    phased: boolean;
  },
): Promise<R> {
  const key = checkIdempotencyKey(ctx.idempotency.key);
  const fingerprints = fingerprintsOf(ctx.vault, ctx.idempotency, path, await getRawInput());
  if (run.phased) return runInPhases(ctx, path, key, fingerprints, run);
  const { merchantId } = ctx;
  return inTransaction(ctx.em, async (em) => {
    // One round trip: the key's lock and record, and the merchant's facts (clock, IPN) the call will need.
    const [claim] = await executePrepared<Claim & FactsRow>(em, claimKey, [merchantId, key]);
    const now = await readClaim(ctx, em, claim, fingerprints);
    if (now instanceof TRPCError) throw now;
    if (typeof now === 'string') return run.replay(JSON.parse(now));

    // The procedure runs after a savepoint: a failure undoes its writes but keeps the record of the answer.
    // Success needs no release; the commit keeps everything. The savepoint travels with the procedure's first
    // statement, and the record with the commit: three round trips for claim, sale and commit.
    await sendWithNext(em, beginCall, []);
    const result = await run.proceed(em);
    if (!result.ok) {
      await executeParameterized(em, undoCall, []);
      em.clear(); // what the failed procedure left in the unit of work must not be flushed at commit
      // A failure that is an event (a decline) is reported with the stored answer: once, whatever the retries.
      const { cause } = result.error;
      if (cause instanceof ReportedFailure) await recordEvent(ctx, em, cause.event, cause.parameters);
    }
    const outcome = storable(result);
    if (!outcome) {
      if (result.ok) return result;
      throw result.error; // unexpected: roll everything back, the key stays free for a retry
    }
    // A record past retention by the merchant's clock leaves the key free: its row, unless the sweep took
    // it meanwhile, takes the new answer. A key seen for the first time needs no conflict check.
    await sendWithNext(em, claim?.outcome == null ? recordOutcome : renewWithOutcome, [
      merchantId,
      key,
      fingerprints[0],
      path,
      JSON.stringify(outcome),
      addSeconds(now, idempotencyRetentionSeconds),
    ]);
    return result;
  });
}

/**
 * A keyed call that reaches an outside party, in phases (Brandur Leach's atomic phases): (1) the key is
 * claimed in a committed record with no answer, which a concurrent retry sees as in flight (409); (2) the
 * procedure runs its own short transactions around the outside call and records its answer in the same
 * transaction as its last writes (`KeyedCall.record`); (3) a domain failure is recorded here. An unexpected
 * failure frees the key unless a payment attempt under it is unresolved: the recovery worker then resolves
 * the attempt and frees the key (cards/recovery.ts).
 */
async function runInPhases<R extends Result>(
  ctx: MerchantContext,
  path: string,
  key: string,
  fingerprints: Fingerprints,
  run: {
    proceed: (em: EntityManager, keyed?: KeyedCall) => Promise<R>;
    replay: (data: unknown) => Promise<R>;
  },
): Promise<R> {
  const { merchantId } = ctx;
  const claimed = await inTransaction(ctx.em, async (em) => {
    const [claim] = await executePrepared<Claim & FactsRow>(em, claimKey, [merchantId, key]);
    const now = await readClaim(ctx, em, claim, fingerprints);
    if (!(now instanceof Date)) return now;
    // the in-flight record travels with the commit
    await sendWithNext(em, recordInFlight, [
      merchantId,
      key,
      fingerprints[0],
      path,
      null,
      addSeconds(now, idempotencyRetentionSeconds),
    ]);
    return now;
  });
  if (claimed instanceof TRPCError) throw claimed;
  if (typeof claimed === 'string') return run.replay(JSON.parse(claimed));

  let recorded = false;
  const keyed: KeyedCall = {
    key,
    // The answer travels with the procedure's commit, which fails if it does: no round trip of its own.
    async record(em, data) {
      await sendWithNext(em, recordAnswer, [merchantId, key, JSON.stringify({ ok: true, data })]);
      recorded = true;
    },
  };
  const result = await run.proceed(ctx.em, keyed);
  if (result.ok && recorded) return result;
  const outcome = storable(result);
  if (!outcome) {
    await executeParameterized(ctx.em, freeKeyWithoutAttempt, [merchantId, key]);
    if (result.ok) return result;
    throw result.error;
  }
  await inTransaction(ctx.em, async (em) => {
    await sendWithNext(em, recordAnswer, [merchantId, key, JSON.stringify(outcome)]);
    const { cause } = result.ok ? { cause: undefined } : result.error;
    if (cause instanceof ReportedFailure) await recordEvent(ctx, em, cause.event, cause.parameters);
  });
  return result;
}
