import { createHash } from 'node:crypto';
import { checkIdempotencyKey } from '@paywire/contracts';
import type { Middleware } from 'koa';
import type { MerchantState } from '../routes/state.ts';
import { requestFormat, responseFormat } from './format.ts';

/**
 * Idempotency-Key on every POST with a JSON or XML body or none, present routes and future ones alike; GET,
 * PUT and DELETE ignore it, and so does a form upload (the chargeback evidence: not in the original's list of
 * keyed operations, and its body is its route's to read, so no fingerprint could cover the file). The
 * facade only checks the key and fingerprints the request (verb, path, query, formats, body bytes); core
 * runs the call exactly once and keeps the answer (core: idempotency/middleware.ts). The digest here is
 * plain and only crosses the internal hop: core stores a keyed hash of it, never the digest itself.
 */
export const idempotencyKey: Middleware<MerchantState> = async (ctx, next) => {
  const header = ctx.headers['idempotency-key'];
  if (ctx.method !== 'POST' || header === undefined || ctx.is('multipart/form-data')) return next();
  const key = checkIdempotencyKey(Array.isArray(header) ? header.join(',') : header);
  const rawBody = (ctx.request as { rawBody?: string }).rawBody ?? '';
  const fingerprint = createHash('sha256')
    .update(
      [ctx.method, ctx.path, ctx.querystring, requestFormat(ctx) ?? '', responseFormat(ctx), rawBody].join(
        '\n',
      ),
    )
    .digest('hex');
  ctx.state.idempotency = { key, fingerprint };
  ctx.set('Idempotency-Key', key);
  await next();
};
