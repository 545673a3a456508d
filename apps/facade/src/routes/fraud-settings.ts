import type Router from '@koa/router';
import { fraudSettingsInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.fraudSettings;

/** The merchant's fraud rules (docs/fraud.md): read, replace whole. */
export function fraudSettingsRoutes(router: Router<MerchantState>, core: CoreClient): void {
  router.get('/fraud-settings', async (ctx) => {
    respond(ctx, 200, await core.fraud.getSettings.query(undefined, asMerchant(ctx.state)), shape);
  });

  router.put('/fraud-settings', async (ctx) => {
    const input = validate(fraudSettingsInput, readBody(ctx, shape));
    respond(ctx, 200, await core.fraud.replaceSettings.mutate(input, asMerchant(ctx.state)), shape);
  });
}
