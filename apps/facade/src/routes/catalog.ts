import type Router from '@koa/router';
import {
  createProductInput,
  customParameterIdInput,
  customParameterInput,
  productIdInput,
  updateCustomParameterInput,
  validate,
} from '@paywire/contracts';
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

  // Custom parameters, as the Extended API: create 201 with Location, retrieve 200, update 204.
  const parameterShape = xmlShapes.customParameter;
  router.post('/catalog/custom-parameters', async (ctx) => {
    const input = validate(customParameterInput, readBody(ctx, parameterShape));
    const { customParamId } = await core.catalog.createCustomParameter.mutate(input, asMerchant(ctx.state));
    ctx.status = 201;
    ctx.set('Location', publicUrl(ctx, `/services/2/catalog/custom-parameters/${customParamId}`));
    ctx.body = '';
  });

  router.get('/catalog/custom-parameters/:customParamId', async (ctx) => {
    const input = validate(customParameterIdInput, ctx.params);
    respond(
      ctx,
      200,
      await core.catalog.getCustomParameter.query(input, asMerchant(ctx.state)),
      parameterShape,
    );
  });

  router.put('/catalog/custom-parameters/:customParamId', async (ctx) => {
    const input = validate(updateCustomParameterInput, {
      ...readBody(ctx, parameterShape),
      customParamId: ctx.params.customParamId,
    });
    await core.catalog.updateCustomParameter.mutate(input, asMerchant(ctx.state));
    ctx.status = 204;
  });
}
