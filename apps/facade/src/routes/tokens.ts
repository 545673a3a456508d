import type Router from '@koa/router';
import { bindTokenInput, prefillTokenInput, validate } from '@paywire/contracts';
import type { Context } from 'koa';
import { asMerchant, type CoreClient, forRequest } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import type { RequestState } from '../http/observe.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

export function tokenRoutes(router: Router<MerchantState>, core: CoreClient): void {
  // 201 with the token as the last segment of Location, and no body (see docs/conformance.md, Status codes).
  const created = (ctx: Context, token: string) => {
    ctx.status = 201;
    ctx.set('Location', publicUrl(ctx, `/services/2/payment-fields-tokens/${token}`));
    ctx.body = '';
  };
  router.post('/payment-fields-tokens', async (ctx) => {
    created(ctx, (await core.tokens.create.mutate(undefined, asMerchant(ctx.state))).token);
  });
  // A card the merchant holds, on a new token: answered as the creation is.
  router.post('/payment-fields-tokens/prefill', async (ctx) => {
    const input = validate(prefillTokenInput, readBody(ctx, xmlShapes.paymentFieldsToken));
    created(ctx, (await core.tokens.prefill.mutate(input, asMerchant(ctx.state))).token);
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
