import type Router from '@koa/router';
import { fraudSettingsBody, fraudSettingsInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.fraudSettings;
const tag = 'Fraud screening';
const rules = ok('The rules', body('FraudSettings', fraudSettingsBody, shape));

/** The merchant's fraud rules (docs/fraud.md): read, replace whole. */
export function fraudSettingsRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'GET',
      path: '/fraud-settings',
      tag,
      summary: "Read the merchant's fraud rules",
      answers: [rules],
    },
    async (ctx) => {
      respond(ctx, 200, await core.fraud.getSettings.query(undefined, asMerchant(ctx.state)), shape);
    },
  );

  route(
    router,
    {
      method: 'PUT',
      path: '/fraud-settings',
      tag,
      summary: "Replace the merchant's fraud rules (a rule left out is off)",
      request: body('FraudSettingsRequest', fraudSettingsInput, shape),
      answers: [rules],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      respond(ctx, 200, await core.fraud.replaceSettings.mutate(input, asMerchant(ctx.state)), shape);
    },
  );
}
