import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { DomainError, type LoginVerdict, sharedWhileRunning, usableCredentials } from '@paywire/contracts';
import type { Context, Middleware } from 'koa';

/** What the facade asks core about credentials. */
export interface CredentialChecks {
  authenticate(attempt: { username: string; password: string; clientAddress: string }): Promise<LoginVerdict>;
  /** The current credentials generation of each merchant that exists. */
  generations(merchantIds: number[]): Promise<Map<number, number>>;
}

export interface BasicAuthOptions {
  /** How long an accepted credential is kept at most. */
  ttlSeconds: number;
  /** Proxies in front of the facade that append to X-Forwarded-For; 0 trusts none (the socket's address). */
  trustedProxyHops: number;
}

interface Accepted {
  merchantId: number;
  generation: number;
  expiresAt: number;
  /** When core last confirmed the merchant's generation (or accepted the credential). */
  confirmedAt: number;
}

const unauthorized = () => new DomainError('UNAUTHORIZED', 'valid Basic credentials are required');
const maxEntries = 10_000;
/** Cached verdicts are checked against core's generations this often while requests come... */
const confirmAfterMs = 500;
/** ...and not trusted at all once older than this: a password change ends them everywhere within a second. */
const trustForMs = 1000;

/** The client's address: the socket's, or the one the outermost trusted proxy appended to X-Forwarded-For. */
export function clientAddress(ctx: Context, trustedProxyHops: number): string {
  const socket = (ctx.req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  if (trustedProxyHops === 0) return socket;
  const forwarded = ctx
    .get('x-forwarded-for')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return (forwarded.at(-trustedProxyHops) ?? forwarded[0] ?? socket).slice(0, 100);
}

function decode(header: string): { username: string; password: string } | null {
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header);
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * HTTP Basic per merchant. The slow password hash runs in core, which also limits failed logins. Accepted
 * credentials are cached under the decoded username and a keyed hash of the password (one entry, however
 * the header spells it in base64), and trusted only while core confirms their merchant's credentials
 * generation: at most every half second, and never on a confirmation older than one second. Refusals are
 * not cached, so a password that becomes right works at once; core's limits bound what they cost.
 */
export function basicAuth(checks: CredentialChecks, options: BasicAuthOptions): Middleware {
  // This process's own: the cache holds no fast hash of any password. A KeyObject, made once: a raw Buffer
  // key is imported again by every HMAC, which showed in the facade's profile under load.
  const passwordKey = createSecretKey(randomBytes(32));
  const accepted = new Map<string, Accepted>();
  const shared = sharedWhileRunning<LoginVerdict>();
  let confirming: Promise<void> | undefined;

  const confirm = (): Promise<void> => {
    confirming ??= (async () => {
      const askedAt = Date.now();
      const ids = [...new Set([...accepted.values()].map((entry) => entry.merchantId))];
      const current = await checks.generations(ids);
      for (const [key, entry] of accepted) {
        const generation = current.get(entry.merchantId);
        if (generation === undefined || generation > entry.generation) accepted.delete(key);
        else if (generation === entry.generation) entry.confirmedAt = Math.max(entry.confirmedAt, askedAt);
      }
    })().finally(() => {
      confirming = undefined;
    });
    return confirming;
  };

  /** The cached merchant for this credential, if its verdict is still trusted. */
  const cached = async (key: string): Promise<number | undefined> => {
    const entry = accepted.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      accepted.delete(key);
      return undefined;
    }
    const age = Date.now() - entry.confirmedAt;
    if (age > confirmAfterMs) {
      const confirmed = confirm().catch(() => {}); // core unreachable: the entry ages out below
      if (age > trustForMs) await confirmed;
    }
    const now = accepted.get(key);
    return now && Date.now() - now.confirmedAt <= trustForMs ? now.merchantId : undefined;
  };

  const remember = (key: string, merchantId: number, generation: number) => {
    accepted.delete(key);
    if (accepted.size >= maxEntries) accepted.delete(accepted.keys().next().value as string);
    const now = Date.now();
    accepted.set(key, {
      merchantId,
      generation,
      expiresAt: now + options.ttlSeconds * 1000,
      confirmedAt: now,
    });
  };

  /** One check in core per credential at a time: concurrent first requests share it. */
  const verdictFor = (key: string, attempt: Parameters<CredentialChecks['authenticate']>[0]) =>
    shared(key, () => checks.authenticate(attempt)).answer;

  return async (ctx, next) => {
    const address = clientAddress(ctx, options.trustedProxyHops);
    ctx.state.clientAddress = address; // the request log names it, refused or not
    const credential = decode(ctx.get('authorization'));
    if (!credential || !usableCredentials(credential.username, credential.password)) throw unauthorized();
    const { username, password } = credential;
    const key = `${createHmac('sha256', passwordKey).update(password).digest('base64')}:${username}`;
    let merchantId = await cached(key);
    if (merchantId === undefined) {
      const verdict = await verdictFor(key, { username, password, clientAddress: address });
      if (verdict.outcome === 'limited') {
        ctx.set('Retry-After', String(verdict.retryAfterSeconds));
        throw new DomainError(
          'TOO_MANY_REQUESTS',
          `too many failed logins; retry in ${verdict.retryAfterSeconds} seconds`,
        );
      }
      if (verdict.outcome === 'refused') throw unauthorized();
      if (options.ttlSeconds > 0) remember(key, verdict.merchantId, verdict.generation);
      merchantId = verdict.merchantId;
    }
    ctx.state.merchantId = merchantId;
    await next();
  };
}
