import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import {
  type AuditAction,
  type CallerCredentialView,
  type CallerScope,
  DomainError,
  type IssuedCallerCredential,
  type issueCallerInput,
  type RevokeCallerInput,
  type rotateCallerInput,
  sharedWhileRunning,
} from '@paywire/contracts';
import type { z } from 'zod';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized, executePrepared } from '../db/wire.ts';
import { Merchant } from '../merchants/entities.ts';
import { callerVerifications } from '../metrics.ts';
import { type AuditEntry, type AuditOrigin, recordAudit } from '../security/audit/trail.ts';
import { CallerCredential } from './entities.ts';
import { activeAdmins, liveCredential, lockBootstrap } from './queries.ts';

/** Who is calling core, as its credential says. */
export interface Caller {
  credentialId: number;
  name: string;
  scope: CallerScope;
  /** The merchant a one-merchant or read-only credential is bound to; null for the others. */
  merchantId: number | null;
}

/**
 * `pwc_<id>_<secret>`: the id finds the row, the secret is 32 random bytes in base64url (43 characters).
 * The hash is of the secret's text, so another spelling of the same bytes is another, wrong, secret.
 */
const credentialPattern = /^pwc_([1-9]\d{0,9})_([A-Za-z0-9_-]{43})$/;
/** The scheme's name is case-insensitive (RFC 9110); one space, then the credential. */
const bearerPattern = /^bearer (\S+)$/i;
const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

function stateOf(credential: CallerCredential, now: Date): CallerCredentialView['state'] {
  if (credential.revokedAt) return 'revoked';
  return credential.expiresAt && credential.expiresAt <= now ? 'expired' : 'active';
}

function viewOf(credential: CallerCredential, now: Date): CallerCredentialView {
  return {
    id: credential.id,
    name: credential.name,
    scope: credential.scope,
    merchantId: credential.merchantId ?? null,
    createdAt: credential.createdAt.toISOString(),
    expiresAt: credential.expiresAt?.toISOString() ?? null,
    revokedAt: credential.revokedAt?.toISOString() ?? null,
    state: stateOf(credential, now),
  };
}

/** A new credential for a caller, audited; its secret is in the answer and nowhere else. */
export function issueCallerCredential(
  em: EntityManager,
  input: z.output<typeof issueCallerInput>,
  origin: AuditOrigin,
): Promise<IssuedCallerCredential> {
  return inTransaction(em, async (em) => {
    const issued = await createCredential(em, input);
    await recordAudit(em, origin, credentialEntry('caller-credential.issue', issued));
    return issued;
  });
}

/**
 * The first admin credential, for the database's owner at a CLI (no admin credential exists to call core
 * with): refused once an admin credential is active, so database access is no way around core's admin
 * procedures. Audited like any issue, with the operator as actor.
 */
export function bootstrapAdminCredential(
  em: EntityManager,
  input: Omit<z.output<typeof issueCallerInput>, 'scope' | 'merchantId'>,
  origin: AuditOrigin,
): Promise<IssuedCallerCredential> {
  return inTransaction(em, async (em) => {
    await executeParameterized(em, lockBootstrap, []);
    const admins = await executeParameterized<{ name: string }>(em, activeAdmins, []);
    if (admins.length > 0)
      throw new Error(
        `an admin credential is active (${admins.map((admin) => admin.name).join(', ')}): issue others with npm run caller -- issue, using it`,
      );
    return issueCallerCredential(em, { ...input, scope: 'admin' }, origin);
  });
}

/** The event of a change to one credential, on its merchant's chain when it is bound to one. */
const credentialEntry = (
  action: AuditAction,
  credential: { id: number; merchantId: number | null },
): AuditEntry => ({
  merchantId: credential.merchantId,
  action,
  object: `caller-credential:${credential.id}`,
  outcome: 'success',
});

async function createCredential(
  em: EntityManager,
  input: z.output<typeof issueCallerInput>,
): Promise<IssuedCallerCredential> {
  const now = new Date();
  if (input.merchantId !== undefined && !(await em.findOne(Merchant, input.merchantId))) {
    throw new DomainError('VALIDATION_GENERAL_FAILURE', 'merchantId: no such merchant', {
      name: 'merchantId',
      messageValue: String(input.merchantId),
    });
  }
  const secret = randomBytes(32).toString('base64url');
  const credential = em.create(CallerCredential, {
    name: input.name,
    scope: input.scope,
    merchantId: input.merchantId ?? null,
    secretHash: hashSecret(secret),
    createdAt: now,
    expiresAt: input.expiresInSeconds ? new Date(now.getTime() + input.expiresInSeconds * 1000) : null,
    revokedAt: null,
  });
  await em.flush();
  return { ...viewOf(credential, now), credential: `pwc_${credential.id}_${secret}` };
}

export async function listCallerCredentials(em: EntityManager): Promise<CallerCredentialView[]> {
  const now = new Date();
  const credentials = await em.find(CallerCredential, {}, { orderBy: { name: 'asc', id: 'asc' } });
  return credentials.map((credential) => viewOf(credential, now));
}

function activeCredentials(em: EntityManager, name: string, now: Date): Promise<CallerCredential[]> {
  return em.find(
    CallerCredential,
    { name, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] },
    { orderBy: { id: 'desc' } },
  );
}

/**
 * A new credential with the scope of the caller's newest active one; the caller's current credentials
 * stay valid for the grace period (or less, if they expire sooner), so it can switch without a gap.
 */
export function rotateCallerCredential(
  em: EntityManager,
  input: z.output<typeof rotateCallerInput>,
  origin: AuditOrigin,
): Promise<IssuedCallerCredential> {
  return inTransaction(em, async (em) => {
    const now = new Date();
    const current = await activeCredentials(em, input.name, now);
    const newest = current[0];
    if (!newest) throw new DomainError('RESOURCE_NOT_FOUND', `caller ${input.name} has no active credential`);
    const graceEnd = new Date(now.getTime() + input.graceSeconds * 1000);
    for (const credential of current) {
      if (!credential.expiresAt || credential.expiresAt > graceEnd) credential.expiresAt = graceEnd;
    }
    const issued = await createCredential(em, {
      name: input.name,
      scope: newest.scope,
      ...(newest.merchantId ? { merchantId: newest.merchantId } : {}),
    });
    await recordAudit(em, origin, credentialEntry('caller-credential.rotate', issued));
    return issued;
  });
}

/**
 * Revokes one credential (by id) or all of a caller's (by name), as one audited action; answers those it
 * revoked now.
 */
export function revokeCallerCredentials(
  em: EntityManager,
  input: RevokeCallerInput,
  origin: AuditOrigin,
): Promise<CallerCredentialView[]> {
  return inTransaction(em, async (em) => {
    const now = new Date();
    const credentials = await em.find(
      CallerCredential,
      'id' in input ? { id: input.id } : { name: input.name, revokedAt: null },
    );
    if ('id' in input && credentials.length === 0)
      throw new DomainError('RESOURCE_NOT_FOUND', `no caller credential ${input.id}`);
    const revoking = credentials.filter((credential) => !credential.revokedAt);
    for (const credential of revoking) credential.revokedAt = now;
    // on the merchant's chain when every credential it names is bound to that one merchant
    const merchants = new Set(credentials.map((credential) => credential.merchantId ?? null));
    await recordAudit(em, origin, {
      merchantId: merchants.size === 1 ? ([...merchants][0] ?? null) : null,
      action: 'caller-credential.revoke',
      object: 'id' in input ? `caller-credential:${input.id}` : `caller:${input.name}`,
      outcome: 'success',
    });
    return revoking.map((credential) => viewOf(credential, now));
  });
}

/** The launcher's way: the caller's previous credentials revoked and a new one issued, in one transaction. */
export function replaceCallerCredential(
  em: EntityManager,
  input: z.output<typeof issueCallerInput>,
  origin: AuditOrigin,
): Promise<IssuedCallerCredential> {
  return inTransaction(em, async (em) => {
    await revokeCallerCredentials(em, { name: input.name }, origin);
    return issueCallerCredential(em, input, origin);
  });
}

interface CredentialRow {
  name: string;
  scope: CallerScope;
  merchant_id: number | null;
  secret_hash: string;
  expires_ms: number | null;
}

/**
 * Checks the `Authorization: Bearer pwc_...` header of a call. A verified credential is trusted for at most
 * `cacheMs` (and never past its expiry), so a revocation or expiry takes effect within that time on every
 * core; everything else costs one primary-key read, shared by the calls that arrive while it is in flight
 * (when the cache expires under load, every call in flight found it expired: hundreds of reads a second
 * where one does). Refusals are not cached.
 */
export function createCallerVerifier(orm: MikroORM, cacheMs = 1000) {
  const verified = new Map<string, { caller: Caller; until: number }>();
  const shared = sharedWhileRunning<Caller | null>();

  async function read(credential: string, now: number): Promise<Caller | null> {
    const match = credentialPattern.exec(credential);
    if (!match) return null;
    const [, id, secret] = match as unknown as [string, string, string];
    callerVerifications.inc({ source: 'read' });
    const [row] = await executePrepared<CredentialRow>(orm.em.fork(), liveCredential, [Number(id)]);
    if (!row || !timingSafeEqual(Buffer.from(hashSecret(secret), 'hex'), Buffer.from(row.secret_hash, 'hex')))
      return null;
    const caller: Caller = {
      credentialId: Number(id),
      name: row.name,
      scope: row.scope,
      merchantId: row.merchant_id,
    };
    if (verified.size >= 10_000) verified.clear(); // bounded: a flood of valid credentials cannot grow it
    verified.set(credential, {
      caller,
      until: Math.min(now + cacheMs, row.expires_ms ?? Number.POSITIVE_INFINITY),
    });
    return caller;
  }

  return async function verifyCaller(authorization: string | undefined): Promise<Caller | null> {
    const credential = bearerPattern.exec(authorization ?? '')?.[1];
    if (!credential) return null;
    const now = Date.now();
    const cached = verified.get(credential);
    if (cached && cached.until > now) return cached.caller;
    const { answer, joined } = shared(credential, () => read(credential, now));
    if (joined) callerVerifications.inc({ source: 'joined' });
    return answer;
  };
}

export type CallerVerifier = ReturnType<typeof createCallerVerifier>;

declare module '../context.ts' {
  interface RequestContext {
    caller: Caller;
  }
}
