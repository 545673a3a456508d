import type Router from '@koa/router';
import { adyenNotificationRequest, processorAccountIdParam, validate } from '@paywire/contracts';
import { type CoreClient, forRequest } from '../core-client.ts';
import type { RequestState } from '../http/observe.ts';

/**
 * Processors' notifications, at the facade's root and not under /services/2: Adyen calls them, not
 * merchants, so no merchant Basic auth runs and the merchant API description leaves them out. Core checks
 * Adyen's own credentials and signatures (processors/adyen/notifications.ts); the facade only checks the
 * body is a notification and relays it with the Authorization header.
 */
export function processorNotificationRoutes(router: Router<RequestState>, core: CoreClient): void {
  router.post('/processors/adyen/:accountId/notifications', async (ctx) => {
    const accountId = validate(processorAccountIdParam, ctx.params.accountId);
    const notification = validate(adyenNotificationRequest, ctx.request.body);
    await core.adyen.notification.mutate(
      { accountId, authorization: ctx.get('authorization'), notification },
      forRequest(ctx.state),
    );
    // Adyen takes a notification as delivered only on this exact answer.
    ctx.status = 200;
    ctx.type = 'text/plain';
    ctx.body = '[accepted]';
  });
}
