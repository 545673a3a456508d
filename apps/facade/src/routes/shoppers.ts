import type Router from '@koa/router';
import {
  createShopperInput,
  merchantShopperIdInput,
  shopperIdInput,
  updateShopperInput,
  validate,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.vaultedShopper;

export function shopperRoutes(router: Router<MerchantState>, core: CoreClient): void {
  router.post('/vaulted-shoppers', async (ctx) => {
    const input = validate(createShopperInput, readBody(ctx, shape));
    respond(ctx, 200, await core.shoppers.create.mutate(input, asMerchant(ctx.state)), shape);
  });

  // Before '/vaulted-shoppers/:vaultedShopperId', which would otherwise take 'merchant' for an id.
  router.get('/vaulted-shoppers/merchant/:merchantShopperId', async (ctx) => {
    const input = validate(merchantShopperIdInput, ctx.params);
    respond(ctx, 200, await core.shoppers.getByMerchantShopperId.query(input, asMerchant(ctx.state)), shape);
  });

  router.delete('/vaulted-shoppers/merchant/:merchantShopperId', async (ctx) => {
    const input = validate(merchantShopperIdInput, ctx.params);
    const deletion = await core.shoppers.deleteByMerchantShopperId.mutate(input, asMerchant(ctx.state));
    respond(ctx, 200, deletion, xmlShapes.shopperDeletion);
  });

  router.get('/vaulted-shoppers/:vaultedShopperId', async (ctx) => {
    const input = validate(shopperIdInput, ctx.params);
    respond(ctx, 200, await core.shoppers.get.query(input, asMerchant(ctx.state)), shape);
  });

  router.delete('/vaulted-shoppers/:vaultedShopperId', async (ctx) => {
    const input = validate(shopperIdInput, ctx.params);
    respond(
      ctx,
      200,
      await core.shoppers.delete.mutate(input, asMerchant(ctx.state)),
      xmlShapes.shopperDeletion,
    );
  });

  router.put('/vaulted-shoppers/:vaultedShopperId', async (ctx) => {
    const input = validate(updateShopperInput, {
      ...readBody(ctx, shape),
      vaultedShopperId: ctx.params.vaultedShopperId,
    });
    respond(ctx, 200, await core.shoppers.update.mutate(input, asMerchant(ctx.state)), shape);
  });
}
