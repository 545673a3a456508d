import { createHash } from 'node:crypto';
import { DomainError } from '@paywire/contracts';
import type { Middleware } from 'koa';

type Authenticate = (username: string, password: string) => Promise<number | null>;

interface Verdict {
  merchantId: Promise<number | null>;
  expiresAt: number;
}

const unauthorized = () => new DomainError('UNAUTHORIZED', 'valid Basic credentials are required');
const maxEntries = 10_000;

/**
 * HTTP Basic per merchant. The slow password hash runs in core once per credential: verdicts, good and
 * bad, are kept briefly under a hash of the header, and concurrent first requests share one check.
 */
export function basicAuth(authenticate: Authenticate, ttlSeconds: number): Middleware {
  const verdicts = new Map<string, Verdict>();

  const verdictFor = (encoded: string): Verdict => {
    const key = createHash('sha256').update(encoded).digest('base64');
    const known = verdicts.get(key);
    if (known && known.expiresAt > Date.now()) return known;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const usable = colon > 0 && !decoded.includes('\u0000'); // no username, or one no merchant can have
    const merchantId = usable
      ? authenticate(decoded.slice(0, colon), decoded.slice(colon + 1))
      : Promise.resolve(null);
    const verdict = { merchantId, expiresAt: Date.now() + ttlSeconds * 1000 };
    verdicts.delete(key);
    if (verdicts.size >= maxEntries) verdicts.delete(verdicts.keys().next().value as string);
    verdicts.set(key, verdict);
    merchantId.catch(() => verdicts.delete(key)); // a failed check (core down) is not a verdict
    return verdict;
  };

  return async (ctx, next) => {
    const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(ctx.get('authorization'));
    if (!match?.[1]) throw unauthorized();
    const merchantId = await verdictFor(match[1]).merchantId;
    if (merchantId === null) throw unauthorized();
    ctx.state.merchantId = merchantId;
    await next();
  };
}
