import type { Middleware } from 'koa';

/** Whether the facade can serve: not draining, and core ready. */
export type Readiness = () => Promise<{ ready: boolean; reason?: string }>;

const cacheMs = 1000;
const probeTimeoutMs = 2000;

type CoreAnswer = 'ready' | 'draining' | 'not ready';

async function askCore(readyz: URL): Promise<CoreAnswer> {
  try {
    const response = await fetch(readyz, { signal: AbortSignal.timeout(probeTimeoutMs) });
    if (response.ok) return 'ready';
    const body = (await response.json().catch(() => ({}))) as { reason?: unknown };
    return body.reason === 'draining' ? 'draining' : 'not ready';
  } catch {
    return 'not ready';
  }
}

/**
 * Readiness of a facade in front of core at coreUrl (its tRPC URL): core's own /readyz, asked at most once
 * a second whatever the probe rate, so probes stay cheap for both.
 *
 * A core that answers "draining" is one replica leaving, not core gone: its answer closes the connection,
 * so the facade asks once more on a new one (which the Service sends to a replica still ready) and, if
 * that one drains too, keeps its last verdict. Otherwise a rolling restart of core would turn every facade
 * whose probe reached the leaving replica unready at once, and the facade Service would refuse connections.
 */
export function coreReadiness(coreUrl: string, draining: () => boolean): Readiness {
  const readyz = new URL('/readyz', coreUrl);
  let last = { at: 0, ready: false };
  return async () => {
    if (draining()) return { ready: false, reason: 'draining' };
    if (Date.now() - last.at > cacheMs) {
      let answer = await askCore(readyz);
      if (answer === 'draining') answer = await askCore(readyz);
      last = { at: Date.now(), ready: answer === 'draining' ? last.ready : answer === 'ready' };
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
