import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type ConsolePermission,
  type ConsoleSession,
  consoleSignInInput,
  DomainError,
  dashboardInput,
  transactionSearchInput,
  validate,
} from '@paywire/contracts';
import type { Context, Middleware } from 'koa';
import { asMerchant, type CoreClient, forRequest } from '../core-client.ts';
import { clientAddress } from '../http/auth.ts';
import type { RequestState } from '../http/observe.ts';
import type { MerchantState } from '../routes/state.ts';
import { consoleAssets } from './assets.ts';

export const consolePath = '/console';
const apiPath = `${consolePath}/api`;
/** The public interface, for a signed-in console: /console/api/services/2/... is /services/2/... */
const publicApiPath = `${apiPath}/services/2/`;
const cookieName = 'paywire_console';
export const csrfHeader = 'x-csrf-token';

export interface ConsoleOptions {
  core: CoreClient;
  trustedProxyHops: number;
}

/**
 * The CSRF token of a session: derived from its secret token, so no facade needs to store it. Only the page
 * learns it (GET /console/api/session, same origin); a page of another site can neither read the HttpOnly
 * cookie nor this answer.
 */
const csrfTokenOf = (sessionToken: string) =>
  createHash('sha256').update(`paywire-console-csrf:${sessionToken}`).digest('base64url');

const signInRequired = () =>
  new DomainError('UNAUTHORIZED', 'sign in to the console: no session, or it ended or timed out');

function sessionToken(ctx: Context): string | undefined {
  const token = ctx.cookies.get(cookieName);
  return token && /^[A-Za-z0-9_-]{43}$/.test(token) ? token : undefined;
}

function setSessionCookie(ctx: Context, token: string | null): void {
  // Secure wherever the browser used TLS: this connection, or a proxy in front that ended it, which an https
  // PUBLIC_BASE_URL says (the cookies module refuses a Secure cookie on a plain connection unless told so).
  const secure = ctx.secure || (ctx.publicBaseUrl ?? '').startsWith('https:');
  ctx.cookies.secure = secure;
  ctx.cookies.set(cookieName, token ?? '', {
    path: consolePath,
    httpOnly: true,
    sameSite: 'strict',
    secure,
    overwrite: true,
    ...(token === null ? { expires: new Date(0) } : {}),
  });
}

const readsOnly = (method: string) => method === 'GET' || method === 'HEAD';

function checkCsrf(ctx: Context, token: string): void {
  if (readsOnly(ctx.method)) return;
  const sent = Buffer.from(ctx.get(csrfHeader));
  const expected = Buffer.from(csrfTokenOf(token));
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
    throw new DomainError('FORBIDDEN', `${csrfHeader}: missing or not this session's CSRF token`, {
      name: csrfHeader,
    });
  }
}

/**
 * What a console user needs for a console call (docs/console.md, Console users): `route` is the method and
 * the path under /console/api, the public interface's under /services/2/. Null: any signed-in user may;
 * `admin` grants every permission, and a merchant's own credentials (no permissions) may do all.
 */
export function requiredPermission(method: string, route: string): ConsolePermission | null {
  if (route === '/session') return null;
  if (route === '/dashboard') return 'allowViewFinancialInfo';
  if (route === '/transactions') return 'allowLocator';
  const path = route.startsWith('/services/2/') ? route.slice('/services/2/'.length) : '';
  if (path.startsWith('report')) return 'allowReports';
  if (readsOnly(method)) return null;
  if (/(^|\/)refund(\/|$)/.test(path) || path.startsWith('chargeback')) return 'allowRefunds';
  if (path.startsWith('transactions') || path.startsWith('alt-transactions')) return 'allowVirtualTerminal';
  if (/^(notification-config|notification-deliveries|fraud-settings)(\/|$)/.test(path))
    return 'allowAccountMaintenance';
  if (path.startsWith('recurring') || path.startsWith('subscriptions')) return 'allowModifySubscriptions';
  if (path.startsWith('catalog')) return 'allowProductMaintenance';
  if (path.startsWith('cp/user')) return 'allowUserMaintenance';
  return 'admin';
}

function checkPermission(ctx: Context, session: ConsoleSession, route: string): void {
  const { permissions } = session;
  if (permissions === null || permissions.admin) return;
  const needed = requiredPermission(ctx.method, route);
  if (needed !== null && !permissions[needed])
    throw new DomainError(
      'FORBIDDEN',
      `the console user lacks the ${needed} permission for ${ctx.method} ${route}`,
    );
}

function json(ctx: Context, status: number, body: object | null): void {
  ctx.status = status;
  if (body === null) return;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(body);
}

/**
 * The merchant console under /console: its built pages, and its API under /console/api. Sign-in takes the
 * merchant's credentials through core's login (the same limits and audit as HTTP Basic) and sets an
 * HttpOnly, SameSite=Strict session cookie for /console only; every other API call needs a live session, and
 * a change also the session's CSRF token in X-CSRF-Token. The public interface is reached through
 * /console/api/services/2/..., which runs the /services/2 routes as the session's merchant. See
 * docs/console.md.
 */
export function consoleRoutes({ core, trustedProxyHops }: ConsoleOptions): Middleware<MerchantState> {
  const serveAsset = consoleAssets();

  /** The session's merchant, or 401; every use restarts its idle time in core. */
  const signedIn = async (
    ctx: Context & { state: RequestState },
  ): Promise<{ token: string; session: ConsoleSession }> => {
    const token = sessionToken(ctx);
    if (!token) throw signInRequired();
    const session = await core.console.resume.mutate({ token }, forRequest(ctx.state));
    if (!session) {
      setSessionCookie(ctx, null);
      throw signInRequired();
    }
    return { token, session };
  };

  const actAs = (ctx: Context & { state: MerchantState }, session: ConsoleSession) => {
    ctx.state.merchantId = session.merchantId;
    ctx.state.clientAddress = clientAddress(ctx, trustedProxyHops);
  };

  return async (ctx, next) => {
    if (ctx.path !== consolePath && !ctx.path.startsWith(`${consolePath}/`)) return next();
    ctx.state.viaConsole = true;
    if (!ctx.path.startsWith(`${apiPath}/`)) {
      if (!readsOnly(ctx.method))
        throw new DomainError('INVALID_HTTP_METHOD', `${ctx.method} is not allowed on ${ctx.path}`);
      serveAsset(ctx, ctx.path.slice(consolePath.length + 1));
      return;
    }
    const route = `${ctx.method} ${ctx.path.slice(apiPath.length)}`;
    if (route === 'POST /session') {
      const body = validate(consoleSignInInput, ctx.request.body ?? {});
      const address = clientAddress(ctx, trustedProxyHops);
      ctx.state.clientAddress = address;
      const verdict = await core.console.signIn.mutate(
        { username: body.username, password: body.password, clientAddress: address },
        forRequest(ctx.state),
      );
      if (verdict.outcome === 'limited') {
        ctx.set('Retry-After', String(verdict.retryAfterSeconds));
        throw new DomainError(
          'TOO_MANY_REQUESTS',
          `too many failed logins; retry in ${verdict.retryAfterSeconds} seconds`,
        );
      }
      if (verdict.outcome === 'refused') throw new DomainError('UNAUTHORIZED', 'wrong username or password');
      setSessionCookie(ctx, verdict.token);
      ctx.state.merchantId = verdict.merchantId;
      json(ctx, 201, { merchantId: verdict.merchantId, csrfToken: csrfTokenOf(verdict.token) });
      return;
    }
    const { token, session } = await signedIn(ctx);
    checkCsrf(ctx, token);
    checkPermission(ctx, session, ctx.path.slice(apiPath.length));
    actAs(ctx, session);
    switch (route) {
      case 'GET /session':
        return json(ctx, 200, { ...session, csrfToken: csrfTokenOf(token) });
      case 'DELETE /session':
        await core.console.signOut.mutate({ token }, forRequest(ctx.state));
        setSessionCookie(ctx, null);
        return json(ctx, 204, null);
      case 'GET /transactions':
        return json(
          ctx,
          200,
          await core.console.searchTransactions.query(
            validate(transactionSearchInput, ctx.query),
            asMerchant(ctx.state),
          ),
        );
      case 'GET /dashboard':
        return json(
          ctx,
          200,
          await core.console.dashboard.query(validate(dashboardInput, ctx.query), asMerchant(ctx.state)),
        );
    }
    if (!ctx.path.startsWith(publicApiPath))
      throw new DomainError('RESOURCE_NOT_FOUND', `no resource at ${ctx.method} ${ctx.path}`);
    ctx.path = `/services/2/${ctx.path.slice(publicApiPath.length)}`;
    await next();
  };
}
