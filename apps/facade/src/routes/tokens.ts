import type Router from '@koa/router';
import { bindTokenInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient, forRequest } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import type { RequestState } from '../http/observe.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

export function tokenRoutes(router: Router<MerchantState>, core: CoreClient): void {
  // 201 with the token as the last segment of Location, and no body (see docs/conformance.md, Status codes).
  router.post('/payment-fields-tokens', async (ctx) => {
    const { token } = await core.tokens.create.mutate(undefined, asMerchant(ctx.state));
    ctx.status = 201;
    ctx.set('Location', publicUrl(ctx, `/services/2/payment-fields-tokens/${token}`));
    ctx.body = '';
  });
}

/** Binding card data needs no merchant credentials: the hosted fields page holds only the token. */
export function publicTokenRoutes(router: Router<RequestState>, core: CoreClient): void {
  router.put('/payment-fields-tokens/:token', async (ctx) => {
    const shape = xmlShapes.paymentFieldsToken;
    const input = validate(bindTokenInput, { ...readBody(ctx, shape), token: ctx.params.token });
    respond(ctx, 200, await core.tokens.bind.mutate(input, forRequest(ctx.state)), shape);
  });
}
