import type Router from '@koa/router';
import { bindTokenInput, boundTokenBody, prefillTokenInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient, forRequest } from '../core-client.ts';
import type { RequestState } from '../http/observe.ts';
import { readBody, respond, respondCreated } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, created, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const tag = 'Hosted payment fields';
const shape = xmlShapes.paymentFieldsToken;

// 201 with the token as the last segment of Location, and no body (see docs/conformance.md, Status codes).
const tokenCreated = created('The token URL; its last segment is the token');
const tokenPath = (token: string) => `/services/2/payment-fields-tokens/${token}`;

export function tokenRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'POST',
      path: '/payment-fields-tokens',
      tag,
      summary: 'Create a hosted payment fields token',
      answers: [tokenCreated],
    },
    async (ctx) => {
      respondCreated(
        ctx,
        tokenPath((await core.tokens.create.mutate(undefined, asMerchant(ctx.state))).token),
      );
    },
  );

  // A card the merchant holds, on a new token: answered as the creation is.
  route(
    router,
    {
      method: 'POST',
      path: '/payment-fields-tokens/prefill',
      tag,
      summary: 'Create a token carrying a card the merchant holds (no security code)',
      request: body('PrefillPaymentFieldsToken', prefillTokenInput, shape),
      answers: [tokenCreated],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      respondCreated(ctx, tokenPath((await core.tokens.prefill.mutate(input, asMerchant(ctx.state))).token));
    },
  );
}

/** Binding card data needs no merchant credentials: the hosted fields page holds only the token. */
export function publicTokenRoutes(router: Router<RequestState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'PUT',
      path: '/payment-fields-tokens/:token',
      tag,
      public: true,
      summary: "Bind the shopper's card to a token (the hosted fields page; the token is the credential)",
      params: bindTokenInput,
      request: body('BindPaymentFieldsToken', bindTokenInput, shape),
      answers: [ok('The bound card', body('BoundToken', boundTokenBody, shape))],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, { ...readBody(ctx, request.shape), token: ctx.params.token });
      respond(ctx, 200, await core.tokens.bind.mutate(input, forRequest(ctx.state)), shape);
    },
  );
}
