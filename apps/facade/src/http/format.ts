import { DomainError } from '@paywire/contracts';
import type { Context } from 'koa';

export type Format = 'json' | 'xml';

function formatOf(mediaType: string): Format | undefined {
  const type = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json') return 'json';
  if (type === 'application/xml' || type === 'text/xml') return 'xml';
  return undefined;
}

function hasBody(ctx: Context): boolean {
  const length = ctx.get('content-length');
  return ctx.get('transfer-encoding') !== '' || (length !== '' && length !== '0');
}

/**
 * The format of the request body, or undefined for a bodiless request. A body we cannot read is 415: one
 * in another format, or compressed. The original gateway's clients send bodies uncompressed, so only
 * `identity` is accepted; decompressing would only add a way to inflate 1 MiB into far more.
 */
export function requestFormat(ctx: Context): Format | undefined {
  if (!hasBody(ctx)) return undefined;
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  // identity is no coding at all; dropped, so the body reader (which knows only lower case) agrees.
  if (encoding === 'identity') delete ctx.req.headers['content-encoding'];
  else if (encoding !== '') {
    throw new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Content-Encoding must be identity: send the body uncompressed',
      {
        name: 'content-encoding',
      },
    );
  }
  const format = formatOf(ctx.get('content-type'));
  if (!format) {
    throw new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Content-Type must be application/json or application/xml',
    );
  }
  return format;
}

/**
 * The response format: the client's most preferred of JSON and XML in Accept; wildcards or nothing we
 * serve fall back to the request's format, then JSON (see docs/conformance.md, Formats).
 */
export function responseFormat(ctx: Context): Format {
  return negotiateFormat(ctx.get('accept'), ctx.get('content-type'));
}

/** responseFormat from the two header values; also used where the request never reached Koa. */
export function negotiateFormat(accept: string, contentType: string): Format {
  const fallback = formatOf(contentType) ?? 'json';
  const ranked = accept
    .split(',')
    .map((entry, position) => {
      const [type = '', ...params] = entry.split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { format: formatOf(type), q: q ? Number(q.slice(2)) : 1, position };
    })
    .filter((entry) => entry.format && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.position - b.position);
  return ranked[0]?.format ?? fallback;
}
