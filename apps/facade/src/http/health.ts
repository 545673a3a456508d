import type { Middleware } from 'koa';

/** Whether the facade can serve: not draining, and core ready. */
export type Readiness = () => Promise<{ ready: boolean; reason?: string }>;

const cacheMs = 1000;
const probeTimeoutMs = 2000;

/**
 * Readiness of a facade in front of core at coreUrl (its tRPC URL): core's own /readyz, asked at most once
 * a second whatever the probe rate, so probes stay cheap for both.
 */
export function coreReadiness(coreUrl: string, draining: () => boolean): Readiness {
  const readyz = new URL('/readyz', coreUrl);
  let last = { at: 0, ready: false };
  return async () => {
    if (draining()) return { ready: false, reason: 'draining' };
    if (Date.now() - last.at > cacheMs) {
      const ready = await fetch(readyz, { signal: AbortSignal.timeout(probeTimeoutMs) }).then(
        (response) => response.ok,
        () => false,
      );
      last = { at: Date.now(), ready };
    }
    return last.ready ? { ready: true } : { ready: false, reason: 'core not ready or unreachable' };
  };
}

/**
 * GET /healthz (the process answers) and GET /readyz, ahead of every other middleware: unauthenticated,
 * outside /services/2, and JSON whatever the request's Accept.
 */
export function healthRoutes(readiness: Readiness): Middleware {
  return async (ctx, next) => {
    if (
      (ctx.path !== '/healthz' && ctx.path !== '/readyz') ||
      (ctx.method !== 'GET' && ctx.method !== 'HEAD')
    )
      return next();
    ctx.set('Cache-Control', 'no-store');
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    const { ready, reason } = await readiness();
    ctx.status = ready ? 200 : 503;
    ctx.body = ready ? { status: 'ready' } : { status: 'not ready', reason };
  };
}
