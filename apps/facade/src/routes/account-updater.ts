import type Router from '@koa/router';
import { accountUpdateBatchIdInput, createAccountUpdateBatchInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.accountUpdateBatch;

/** The account updater (docs/account-updater.md): the original's Create and Retrieve Account Updater. */
export function accountUpdaterRoutes(router: Router<MerchantState>, core: CoreClient): void {
  router.post('/account-updater', async (ctx) => {
    const input = validate(createAccountUpdateBatchInput, readBody(ctx, shape));
    respond(ctx, 200, await core.accountUpdater.submitBatch.mutate(input, asMerchant(ctx.state)), shape);
  });

  router.get('/account-updater/:accountUpdateBatchId', async (ctx) => {
    const input = validate(accountUpdateBatchIdInput, ctx.params);
    respond(ctx, 200, await core.accountUpdater.retrieveBatch.query(input, asMerchant(ctx.state)), shape);
  });
}
