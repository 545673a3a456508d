import type Router from '@koa/router';
import { createProductInput, productIdInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.product;

/** The merchant's catalogue (ours): products with priced skus, which orders name. */
export function catalogRoutes(router: Router<MerchantState>, core: CoreClient): void {
  router.post('/catalog/products', async (ctx) => {
    const input = validate(createProductInput, readBody(ctx, shape));
    respond(ctx, 200, await core.catalog.create.mutate(input, asMerchant(ctx.state)), shape);
  });

  router.get('/catalog/products/:productId', async (ctx) => {
    const input = validate(productIdInput, ctx.params);
    respond(ctx, 200, await core.catalog.get.query(input, asMerchant(ctx.state)), shape);
  });
}
