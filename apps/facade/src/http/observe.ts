import {
  childOnFirstLine,
  extractTraceContext,
  inSpan,
  type Logger,
  newRequestId,
  requestIdHeader,
  SpanKind,
  validRequestId,
} from '@paywire/observability';
import type { Middleware } from 'koa';
import { requestDuration } from '../metrics.ts';

/** What every request carries from the first middleware on: its id and a logger that names it. */
export interface RequestState {
  requestId: string;
  log: Logger;
  /** Set by Basic auth: the client's address (whatever the verdict) and the merchant it proved to be. */
  clientAddress?: string;
  merchantId?: number;
  /**
   * A request to the merchant console (/console): its page, or its API, whose session, not Basic, names the
   * merchant (console/routes.ts). Its 401 asks for no Basic credentials, which would open the browser's dialog.
   */
  viaConsole?: boolean;
}

/** A payment fields token in a path is a credential for the card bound to it: it stays out of the log. */
export function loggablePath(path: string): string {
  return path.replace(/(\/payment-fields-tokens\/)[^/]+/, '$1[token]');
}

/**
 * First in the chain: the request's id (the client's X-Request-Id if it is a safe one, else a new one),
 * echoed on every answer; a child logger that carries it; the duration histogram by matched route
 * pattern (never the raw path, whose ids would make a series per resource); one log line per request
 * when asked, naming the merchant and the client address when Basic auth ran.
 */
export function observeRequests(log: Logger, logRequests: boolean): Middleware<RequestState> {
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = validRequestId(ctx.get(requestIdHeader)) ?? newRequestId();
    ctx.state.requestId = requestId;
    ctx.state.log = childOnFirstLine(log, { requestId });
    ctx.set('X-Request-Id', requestId);
    const span = { kind: SpanKind.SERVER, parent: extractTraceContext(ctx.headers) };
    try {
      await inSpan('paywire-facade', ctx.method, span, async (current) => {
        await next();
        const route = (ctx as { _matchedRoute?: string })._matchedRoute;
        current?.updateName(`${ctx.method} ${route ?? ''}`.trim());
        current?.setAttributes({
          'http.route': route ?? '',
          'http.response.status_code': ctx.status,
          requestId,
        });
      });
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      requestDuration.observe({ route, method: ctx.method, status: ctx.status }, seconds);
      if (logRequests) {
        ctx.state.log.info(
          {
            method: ctx.method,
            path: loggablePath(ctx.path),
            route,
            status: ctx.status,
            merchantId: ctx.state.merchantId,
            clientAddress: ctx.state.clientAddress,
            ms: Math.round(seconds * 1000),
          },
          'request',
        );
      }
    }
  };
}
