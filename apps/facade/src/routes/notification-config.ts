import type Router from '@koa/router';
import { notificationConfigInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.notificationConfig;

/** IPN configuration (see docs/conformance.md, IPN configuration): read, replace whole, delete. */
export function notificationConfigRoutes(router: Router<MerchantState>, core: CoreClient): void {
  router.get('/notification-config', async (ctx) => {
    respond(ctx, 200, await core.ipn.getConfig.query(undefined, asMerchant(ctx.state)), shape);
  });

  router.post('/notification-config', async (ctx) => {
    const input = validate(notificationConfigInput, readBody(ctx, shape));
    respond(ctx, 200, await core.ipn.replaceConfig.mutate(input, asMerchant(ctx.state)), shape);
  });

  router.delete('/notification-config', async (ctx) => {
    await core.ipn.deleteConfig.mutate(undefined, asMerchant(ctx.state));
    ctx.status = 204;
  });
}
