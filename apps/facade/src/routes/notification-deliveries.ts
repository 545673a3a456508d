import type Router from '@koa/router';
import {
  deliveryIdInput,
  deliveryLogQuery,
  notificationDeliveryBody,
  notificationDeliveryPageBody,
  validate,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

/**
 * The IPN delivery log (ours; the interface has none): a page of the merchant's deliveries, newest first,
 * filtered by state, event and destination, and one more attempt at a delivery.
 */
export function notificationDeliveryRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'GET',
      path: '/notification-deliveries',
      tag: 'Notifications',
      summary: 'The IPN delivery log, newest first, a page at a time',
      query: deliveryLogQuery,
      answers: [
        ok(
          'A page of deliveries',
          body('NotificationDeliveryPage', notificationDeliveryPageBody, xmlShapes.deliveryLog),
        ),
      ],
    },
    async (ctx, { query }) => {
      const input = validate(query, ctx.query);
      respond(ctx, 200, await core.ipn.deliveries.query(input, asMerchant(ctx.state)), xmlShapes.deliveryLog);
    },
  );

  route(
    router,
    {
      method: 'POST',
      path: '/notification-deliveries/:deliveryId/redeliver',
      tag: 'Notifications',
      summary: 'One more attempt at a delivery',
      params: deliveryIdInput,
      answers: [
        ok(
          'The delivery',
          body('NotificationDelivery', notificationDeliveryBody, xmlShapes.notificationDelivery),
        ),
      ],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(
        ctx,
        200,
        await core.ipn.redeliver.mutate(input, asMerchant(ctx.state)),
        xmlShapes.notificationDelivery,
      );
    },
  );
}
