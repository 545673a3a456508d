import type Router from '@koa/router';
import {
  createProductInput,
  createSkuInput,
  customParameterBody,
  customParameterIdInput,
  customParameterInput,
  productBody,
  productIdInput,
  skuBody,
  skuIdInput,
  updateCustomParameterInput,
  updateProductInput,
  updateSkuInput,
  validate,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond, respondCreated } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, created, noContent, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.product;
const skuShape = xmlShapes.catalogSku;
const parameterShape = xmlShapes.customParameter;
const tag = 'Catalog';

/**
 * The merchant's catalogue, as the original's Extended API: products, their skus (which carry the prices and
 * which orders name) and custom parameters. Create answers 201 with the URL in Location and no body,
 * retrieve 200, update 204.
 */
export function catalogRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'POST',
      path: '/catalog/products',
      tag,
      summary: 'Create a product',
      request: body('CreateProduct', createProductInput, shape),
      answers: [created('The product URL')],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      const { productId } = await core.catalog.create.mutate(input, asMerchant(ctx.state));
      respondCreated(ctx, `/services/2/catalog/products/${productId}`);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/catalog/products/:productId',
      tag,
      summary: 'Retrieve a product, with the URLs of its skus',
      params: productIdInput,
      answers: [ok('The product', body('Product', productBody, shape))],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      const product = await core.catalog.get.query(input, asMerchant(ctx.state));
      respond(
        ctx,
        200,
        { ...product, productSkus: product.productSkus.map((path) => publicUrl(ctx, path)) },
        shape,
      );
    },
  );

  route(
    router,
    {
      method: 'PUT',
      path: '/catalog/products/:productId',
      tag,
      summary: 'Update a product (its skus take its new name)',
      params: productIdInput,
      request: body('UpdateProduct', updateProductInput, shape),
      answers: [noContent('Updated; no body')],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, {
        ...readBody(ctx, request.shape),
        productId: ctx.params.productId,
      });
      await core.catalog.update.mutate(input, asMerchant(ctx.state));
      ctx.status = 204;
    },
  );

  route(
    router,
    {
      method: 'POST',
      path: '/catalog/skus',
      tag,
      summary: 'Create a sku of a product: a one-time price in one currency',
      request: body('CreateSku', createSkuInput, skuShape),
      answers: [created('The sku URL')],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      const { skuId } = await core.catalog.createSku.mutate(input, asMerchant(ctx.state));
      respondCreated(ctx, `/services/2/catalog/skus/${skuId}`);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/catalog/skus/:skuId',
      tag,
      summary: 'Retrieve a sku',
      params: skuIdInput,
      answers: [ok('The sku', body('Sku', skuBody, skuShape))],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(ctx, 200, await core.catalog.getSku.query(input, asMerchant(ctx.state)), skuShape);
    },
  );

  route(
    router,
    {
      method: 'PUT',
      path: '/catalog/skus/:skuId',
      tag,
      summary: 'Update a sku (the whole sku again); orders placed keep their prices',
      params: skuIdInput,
      request: body('UpdateSku', updateSkuInput, skuShape),
      answers: [noContent('Updated; no body')],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, { ...readBody(ctx, request.shape), skuId: ctx.params.skuId });
      await core.catalog.updateSku.mutate(input, asMerchant(ctx.state));
      ctx.status = 204;
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
      respondCreated(ctx, `/services/2/catalog/custom-parameters/${customParamId}`);
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
