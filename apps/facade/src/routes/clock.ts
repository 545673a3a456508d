import type Router from '@koa/router';
import { advanceClockInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.sandboxClock;

/** The merchant's sandbox clock (ours; 404 in live mode). */
export function clockRoutes(router: Router<MerchantState>, core: CoreClient): void {
  router.get('/sandbox/clock', async (ctx) => {
    respond(ctx, 200, await core.clock.get.query(undefined, asMerchant(ctx.state)), shape);
  });

  router.put('/sandbox/clock', async (ctx) => {
    const input = validate(advanceClockInput, readBody(ctx, shape));
    respond(ctx, 200, await core.clock.advance.mutate(input, asMerchant(ctx.state)), shape);
  });
}
