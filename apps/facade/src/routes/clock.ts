import type Router from '@koa/router';
import { advanceClockInput, sandboxClockBody, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.sandboxClock;
const clock = ok('The clock', body('SandboxClock', sandboxClockBody, shape));

/** The merchant's sandbox clock (ours; 404 in live mode). */
export function clockRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'GET',
      path: '/sandbox/clock',
      tag: 'Sandbox',
      summary: "Read the merchant's sandbox clock",
      answers: [clock],
    },
    async (ctx) => {
      respond(ctx, 200, await core.clock.get.query(undefined, asMerchant(ctx.state)), shape);
    },
  );

  route(
    router,
    {
      method: 'PUT',
      path: '/sandbox/clock',
      tag: 'Sandbox',
      summary: "Advance the merchant's sandbox clock (runs what falls due)",
      request: body('AdvanceSandboxClock', advanceClockInput, shape),
      answers: [clock],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      respond(ctx, 200, await core.clock.advance.mutate(input, asMerchant(ctx.state)), shape);
    },
  );
}
