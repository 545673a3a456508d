import type Router from '@koa/router';
import {
  createShopperInput,
  merchantShopperIdInput,
  shopperDeletionBody,
  shopperIdInput,
  updateShopperInput,
  validate,
  vaultedShopperBody,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.vaultedShopper;
const tag = 'Vaulted shoppers';
const shopper = ok('The shopper', body('VaultedShopper', vaultedShopperBody, shape));
const deletion = ok('The deletion', body('ShopperDeletion', shopperDeletionBody, xmlShapes.shopperDeletion));

export function shopperRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'POST',
      path: '/vaulted-shoppers',
      tag,
      summary: 'Create a vaulted shopper, with cards',
      request: body('CreateVaultedShopper', createShopperInput, shape),
      answers: [shopper],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      respond(ctx, 200, await core.shoppers.create.mutate(input, asMerchant(ctx.state)), shape);
    },
  );

  // Before '/vaulted-shoppers/:vaultedShopperId', which would otherwise take 'merchant' for an id.
  route(
    router,
    {
      method: 'GET',
      path: '/vaulted-shoppers/merchant/:merchantShopperId',
      tag,
      summary: "Retrieve a vaulted shopper by the merchant's own id",
      params: merchantShopperIdInput,
      answers: [shopper],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(
        ctx,
        200,
        await core.shoppers.getByMerchantShopperId.query(input, asMerchant(ctx.state)),
        shape,
      );
    },
  );

  route(
    router,
    {
      method: 'DELETE',
      path: '/vaulted-shoppers/merchant/:merchantShopperId',
      tag,
      summary: "Delete a vaulted shopper by the merchant's own id: its cards and personal data are erased",
      params: merchantShopperIdInput,
      answers: [deletion],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      const deleted = await core.shoppers.deleteByMerchantShopperId.mutate(input, asMerchant(ctx.state));
      respond(ctx, 200, deleted, xmlShapes.shopperDeletion);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/vaulted-shoppers/:vaultedShopperId',
      tag,
      summary: 'Retrieve a vaulted shopper',
      params: shopperIdInput,
      answers: [shopper],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(ctx, 200, await core.shoppers.get.query(input, asMerchant(ctx.state)), shape);
    },
  );

  route(
    router,
    {
      method: 'DELETE',
      path: '/vaulted-shoppers/:vaultedShopperId',
      tag,
      summary: 'Delete a vaulted shopper: its cards and personal data are erased, ShopperDeleted is sent',
      description:
        'Refused (400) while a subscription may still charge the shopper or a SEPA debit of its is pending.',
      params: shopperIdInput,
      answers: [deletion],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      const deleted = await core.shoppers.delete.mutate(input, asMerchant(ctx.state));
      respond(ctx, 200, deleted, xmlShapes.shopperDeletion);
    },
  );

  route(
    router,
    {
      method: 'PUT',
      path: '/vaulted-shoppers/:vaultedShopperId',
      tag,
      summary: 'Update a vaulted shopper; cards sent are added, cards sent with status D are removed',
      params: shopperIdInput,
      request: body('UpdateVaultedShopper', updateShopperInput, shape),
      answers: [shopper],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, {
        ...readBody(ctx, request.shape),
        vaultedShopperId: ctx.params.vaultedShopperId,
      });
      respond(ctx, 200, await core.shoppers.update.mutate(input, asMerchant(ctx.state)), shape);
    },
  );
}
