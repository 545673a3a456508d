import type Router from '@koa/router';
import { deliveryIdInput, deliveryLogQuery, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

/**
 * The IPN delivery log (ours; the interface has none): a page of the merchant's deliveries, newest first,
 * filtered by state, event and destination, and one more attempt at a delivery.
 */
export function notificationDeliveryRoutes(router: Router<MerchantState>, core: CoreClient): void {
  router.get('/notification-deliveries', async (ctx) => {
    const query = validate(deliveryLogQuery, ctx.query);
    respond(ctx, 200, await core.ipn.deliveries.query(query, asMerchant(ctx.state)), xmlShapes.deliveryLog);
  });

  router.post('/notification-deliveries/:deliveryId/redeliver', async (ctx) => {
    const input = validate(deliveryIdInput, ctx.params);
    respond(
      ctx,
      200,
      await core.ipn.redeliver.mutate(input, asMerchant(ctx.state)),
      xmlShapes.notificationDelivery,
    );
  });
}
