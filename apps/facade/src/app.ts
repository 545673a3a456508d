import Router from '@koa/router';
import type { Logger } from '@paywire/observability';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { consoleRoutes } from './console/routes.ts';
import type { CoreClient } from './core-client.ts';
import { basicAuth, type CredentialChecks } from './http/auth.ts';
import { renderErrors } from './http/errors.ts';
import { requestFormat } from './http/format.ts';
import { healthRoutes, type Readiness } from './http/health.ts';
import { idempotencyKey } from './http/idempotency.ts';
import { observeRequests } from './http/observe.ts';
import { checkProtocol } from './http/protocol.ts';
import { refuseUnsafeInput } from './http/safe-input.ts';
import { checkApiVersion } from './http/version.ts';
import { accountUpdaterRoutes } from './routes/account-updater.ts';
import { altTransactionRoutes } from './routes/alt-transactions.ts';
import { apiDescriptionRoutes } from './routes/api-description.ts';
import { auditEventRoutes } from './routes/audit-events.ts';
import { catalogRoutes } from './routes/catalog.ts';
import { chargebackRoutes } from './routes/chargebacks.ts';
import { clockRoutes } from './routes/clock.ts';
import { fraudSettingsRoutes } from './routes/fraud-settings.ts';
import { hostedFieldsRoutes } from './routes/hosted-fields.ts';
import { notificationConfigRoutes } from './routes/notification-config.ts';
import { notificationDeliveryRoutes } from './routes/notification-deliveries.ts';
import { orderRoutes } from './routes/orders.ts';
import { partnerRoutes } from './routes/partners.ts';
import { processorNotificationRoutes } from './routes/processor-notifications.ts';
import { recurringRoutes } from './routes/recurring.ts';
import { reportRoutes } from './routes/reports.ts';
import { shopperRoutes } from './routes/shoppers.ts';
import type { MerchantState } from './routes/state.ts';
import { publicTokenRoutes, tokenRoutes } from './routes/tokens.ts';
import { transactionRoutes } from './routes/transactions.ts';
import { vendorRoutes } from './routes/vendors.ts';
import { walletRoutes } from './routes/wallets.ts';

export interface FacadeOptions {
  core: CoreClient;
  log: Logger;
  xmlNamespace: string;
  authCacheSeconds: number;
  /** Proxies in front that append the client's address to X-Forwarded-For (default 0: none trusted). */
  trustedProxyHops?: number;
  /** One log line per request (request id, method, path, route, status, time); off for benchmarks. */
  logRequests: boolean;
  /** Base of every link the facade hands out (PUBLIC_BASE_URL); unset, listenFacade uses the listen address. */
  publicBaseUrl?: string;
  /** What GET /readyz answers (main.ts: not draining and core ready); default always ready. */
  readiness?: Readiness;
}

const bodyLimit = '1mb';
const basePath = '/services/2';

/** The public /services/2 interface: HTTP only, every capability through core's procedures. */
export function createFacade({
  core,
  log,
  xmlNamespace,
  authCacheSeconds,
  trustedProxyHops = 0,
  logRequests,
  publicBaseUrl,
  readiness = async () => ({ ready: true }),
}: FacadeOptions): Koa {
  const app = new Koa();
  app.context.xmlNamespace = xmlNamespace;
  if (publicBaseUrl !== undefined) app.context.publicBaseUrl = publicBaseUrl;
  app.silent = true; // renderErrors logs what is unexpected; Koa's default logger would print the rest too

  const processorRoutes = new Router();
  processorNotificationRoutes(processorRoutes, core);
  const publicRoutes = new Router({ prefix: basePath });
  publicTokenRoutes(publicRoutes, core);
  hostedFieldsRoutes(publicRoutes, core);
  const merchantRoutes = new Router<MerchantState>({ prefix: basePath });
  transactionRoutes(merchantRoutes, core);
  shopperRoutes(merchantRoutes, core);
  tokenRoutes(merchantRoutes, core);
  clockRoutes(merchantRoutes, core);
  notificationConfigRoutes(merchantRoutes, core);
  fraudSettingsRoutes(merchantRoutes, core);
  notificationDeliveryRoutes(merchantRoutes, core);
  auditEventRoutes(merchantRoutes, core);
  catalogRoutes(merchantRoutes, core);
  altTransactionRoutes(merchantRoutes, core);
  orderRoutes(merchantRoutes, core);
  partnerRoutes(merchantRoutes, core);
  recurringRoutes(merchantRoutes, core);
  reportRoutes(merchantRoutes, core);
  chargebackRoutes(merchantRoutes, core);
  vendorRoutes(merchantRoutes, core);
  accountUpdaterRoutes(merchantRoutes, core);
  walletRoutes(merchantRoutes, core);
  apiDescriptionRoutes(publicRoutes, xmlNamespace, [publicRoutes, merchantRoutes]);

  app.use(healthRoutes(readiness)); // before the request log: probes every few seconds are not traffic
  app.use(observeRequests(log, logRequests));
  app.use(renderErrors(log));
  // Every route also answers with a trailing slash (see docs/conformance.md, Paths and versions); an empty trailing '?' never reaches the path.
  app.use(async (ctx, next) => {
    if (ctx.path.length > 1 && ctx.path.endsWith('/')) ctx.path = ctx.path.replace(/\/+$/, '') || '/';
    await next();
  });
  app.use(
    checkProtocol((path) => [
      ...new Set(
        [processorRoutes, publicRoutes, merchantRoutes].flatMap((router) =>
          router.match(path, 'GET').path.flatMap((layer) => layer.methods),
        ),
      ),
    ]),
  );
  app.use(checkApiVersion);
  app.use(async (ctx, next) => {
    // 415 for a body in a format we do not read, before anything parses it; a form upload is its route's
    // to read (routes/chargebacks.ts), and any route reading JSON or XML refuses one (readBody)
    if (!ctx.is('multipart/form-data')) requestFormat(ctx);
    await next();
  });
  app.use(
    bodyParser({
      enableTypes: ['json', 'xml'],
      jsonLimit: bodyLimit,
      xmlLimit: bodyLimit,
      strict: true,
    } as bodyParser.Options),
  );
  app.use(refuseUnsafeInput);
  app.use(consoleRoutes({ core, trustedProxyHops }));
  app.use(processorRoutes.routes());
  app.use(publicRoutes.routes());
  const merchantAuth = basicAuth(credentialChecks(core), { ttlSeconds: authCacheSeconds, trustedProxyHops });
  // A console request that gets this far has a live session, which named the merchant.
  app.use((ctx, next) => (ctx.state.viaConsole ? next() : merchantAuth(ctx, next)));
  app.use(idempotencyKey);
  app.use(merchantRoutes.routes());
  app.use(merchantRoutes.allowedMethods());
  return app;
}

function credentialChecks(core: CoreClient): CredentialChecks {
  return {
    authenticate: (attempt) => core.merchants.authenticate.mutate(attempt),
    async generations(merchantIds) {
      const { generations } = await core.merchants.credentialGenerations.mutate({ merchantIds });
      return new Map(generations.map((row) => [row.merchantId, row.generation]));
    },
  };
}
