import type Router from '@koa/router';
import {
  accountUpdateBatchBody,
  accountUpdateBatchIdInput,
  createAccountUpdateBatchInput,
  validate,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.accountUpdateBatch;
const tag = 'Account updater';
const batch = body('AccountUpdateBatch', accountUpdateBatchBody, shape);

/** The account updater (docs/account-updater.md): the original's Create and Retrieve Account Updater. */
export function accountUpdaterRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'POST',
      path: '/account-updater',
      tag,
      summary: 'Send a batch of up to 2,000 cards to the account updater; each card is answered as received',
      description:
        "The answers are ready five days later by the merchant's clock; vaulted cards with a submitted number are updated in place then.",
      request: body('AccountUpdateBatchRequest', createAccountUpdateBatchInput, shape),
      answers: [ok('The batch as received', batch)],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      respond(ctx, 200, await core.accountUpdater.submitBatch.mutate(input, asMerchant(ctx.state)), shape);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/account-updater/:accountUpdateBatchId',
      tag,
      summary: "Retrieve a batch's answers, card by card, once they are ready",
      params: accountUpdateBatchIdInput,
      answers: [ok("The batch's answers", batch)],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(ctx, 200, await core.accountUpdater.retrieveBatch.query(input, asMerchant(ctx.state)), shape);
    },
  );
}
