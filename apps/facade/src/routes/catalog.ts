import type Router from '@koa/router';
import { createProductInput, productIdInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.product;

/** The merchant's catalogue (ours): products with priced skus, which orders name. */
export function catalogRoutes(router: Router<MerchantState>, core: CoreClient): void {
  // As the original's Extended API: 201, the product's URL in Location, no body (GET it for the sku ids).
  router.post('/catalog/products', async (ctx) => {
    const input = validate(createProductInput, readBody(ctx, shape));
    const { productId } = await core.catalog.create.mutate(input, asMerchant(ctx.state));
    ctx.status = 201;
    ctx.set('Location', publicUrl(ctx, `/services/2/catalog/products/${productId}`));
    ctx.body = '';
  });

  router.get('/catalog/products/:productId', async (ctx) => {
    const input = validate(productIdInput, ctx.params);
    respond(ctx, 200, await core.catalog.get.query(input, asMerchant(ctx.state)), shape);
  });
}
