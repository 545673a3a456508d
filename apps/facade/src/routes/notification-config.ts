import type Router from '@koa/router';
import { notificationConfigBody, notificationConfigInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, noContent, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.notificationConfig;
const tag = 'Notifications';
const config = ok('The configuration', body('NotificationConfig', notificationConfigBody, shape));

/** IPN configuration (see docs/conformance.md, IPN configuration): read, replace whole, delete. */
export function notificationConfigRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'GET',
      path: '/notification-config',
      tag,
      summary: 'Read the IPN configuration',
      answers: [config],
    },
    async (ctx) => {
      respond(ctx, 200, await core.ipn.getConfig.query(undefined, asMerchant(ctx.state)), shape);
    },
  );

  route(
    router,
    {
      method: 'POST',
      path: '/notification-config',
      tag,
      summary: 'Replace the IPN configuration',
      request: body('NotificationConfigRequest', notificationConfigInput, shape),
      answers: [config],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      respond(ctx, 200, await core.ipn.replaceConfig.mutate(input, asMerchant(ctx.state)), shape);
    },
  );

  route(
    router,
    {
      method: 'DELETE',
      path: '/notification-config',
      tag,
      summary: 'Delete the IPN configuration',
      answers: [noContent('Deleted')],
    },
    async (ctx) => {
      await core.ipn.deleteConfig.mutate(undefined, asMerchant(ctx.state));
      ctx.status = 204;
    },
  );
}
