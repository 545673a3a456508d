import type Router from '@koa/router';
import {
  createProductInput,
  customParameterBody,
  customParameterIdInput,
  customParameterInput,
  productBody,
  productIdInput,
  updateCustomParameterInput,
  validate,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, created, noContent, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.product;
const parameterShape = xmlShapes.customParameter;
const tag = 'Catalog';

/** The merchant's catalogue (ours): products with priced skus, which orders name. */
export function catalogRoutes(router: Router<MerchantState>, core: CoreClient): void {
  // As the original's Extended API: 201, the product's URL in Location, no body (GET it for the sku ids).
  route(
    router,
    {
      method: 'POST',
      path: '/catalog/products',
      tag,
      summary: 'Create a product with its priced skus',
      request: body('CreateProduct', createProductInput, shape),
      answers: [created('The product URL (GET it for the sku ids)')],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      const { productId } = await core.catalog.create.mutate(input, asMerchant(ctx.state));
      ctx.status = 201;
      ctx.set('Location', publicUrl(ctx, `/services/2/catalog/products/${productId}`));
      ctx.body = '';
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/catalog/products/:productId',
      tag,
      summary: 'Retrieve a product',
      params: productIdInput,
      answers: [ok('The product', body('Product', productBody, shape))],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(ctx, 200, await core.catalog.get.query(input, asMerchant(ctx.state)), shape);
    },
  );

  // Custom parameters, as the Extended API: create 201 with Location, retrieve 200, update 204.
  route(
    router,
    {
      method: 'POST',
      path: '/catalog/custom-parameters',
      tag,
      summary: 'Create a custom parameter (a checkout field)',
      request: body('CreateCustomParameter', customParameterInput, parameterShape),
      answers: [created('The parameter URL')],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      const { customParamId } = await core.catalog.createCustomParameter.mutate(input, asMerchant(ctx.state));
      ctx.status = 201;
      ctx.set('Location', publicUrl(ctx, `/services/2/catalog/custom-parameters/${customParamId}`));
      ctx.body = '';
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/catalog/custom-parameters/:customParamId',
      tag,
      summary: 'Retrieve a custom parameter',
      params: customParameterIdInput,
      answers: [ok('The parameter', body('CustomParameter', customParameterBody, parameterShape))],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(
        ctx,
        200,
        await core.catalog.getCustomParameter.query(input, asMerchant(ctx.state)),
        parameterShape,
      );
    },
  );

  route(
    router,
    {
      method: 'PUT',
      path: '/catalog/custom-parameters/:customParamId',
      tag,
      summary: 'Replace a custom parameter',
      params: customParameterIdInput,
      request: body('UpdateCustomParameter', updateCustomParameterInput, parameterShape),
      answers: [noContent('Updated; no body')],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, {
        ...readBody(ctx, request.shape),
        customParamId: ctx.params.customParamId,
      });
      await core.catalog.updateCustomParameter.mutate(input, asMerchant(ctx.state));
      ctx.status = 204;
    },
  );
}
