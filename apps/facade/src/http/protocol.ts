import { DomainError } from '@paywire/contracts';
import type { Middleware } from 'koa';

/** The methods @koa/router knows; it answers them 405 with Allow where a route does not serve them. */
const routedMethods = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

/**
 * What HTTP itself requires before any route: a method the service serves (TRACE, PROPFIND, SEARCH... are
 * 405 with the path's methods in Allow, not the router's bare 501) and, on HTTP/1.1, a Host header (RFC
 * 9112; Node's own check would answer a bare 400, so the server leaves it to this one).
 */
export function checkProtocol(methodsAt: (path: string) => string[]): Middleware {
  return async (ctx, next) => {
    if (!routedMethods.has(ctx.method)) {
      const allowed = methodsAt(ctx.path);
      if (allowed.length > 0) ctx.set('Allow', allowed.join(', '));
      throw new DomainError('INVALID_HTTP_METHOD', `${ctx.method} is not a method this service serves`);
    }
    if (ctx.req.httpVersion === '1.1' && ctx.get('host') === '') {
      throw new DomainError('VALIDATION_GENERAL_FAILURE', 'host: an HTTP/1.1 request needs a Host header', {
        name: 'host',
      });
    }
    await next();
  };
}
