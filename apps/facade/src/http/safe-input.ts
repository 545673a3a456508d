import { assertSafeInput } from '@paywire/contracts';
import type { Middleware } from 'koa';

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path; // malformed escapes stay as written, as the router leaves them: harmless text
  }
}

/**
 * After the body is parsed and before any route: a NUL or an unpaired surrogate anywhere in the path, the
 * query or the body (JSON values and property names, XML text) is 400 naming where it is, so no route,
 * contract or stored JSON column ever sees one (PostgreSQL refuses both).
 */
export const refuseUnsafeInput: Middleware = async (ctx, next) => {
  assertSafeInput(decodedPath(ctx.path), 'path');
  assertSafeInput(ctx.query, 'query');
  assertSafeInput(ctx.request.body);
  await next();
};
