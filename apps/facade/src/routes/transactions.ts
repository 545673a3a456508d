import type Router from '@koa/router';
import {
  checkTransactionType,
  createTransactionInput,
  refundInput,
  updateTransactionInput,
  validate,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.cardTransaction;

export function transactionRoutes(router: Router<MerchantState>, core: CoreClient): void {
  // Sale and auth-only; the body's type picks the operation, the verb must match it (decisions.md).
  router.post('/transactions', async (ctx) => {
    const body = readBody(ctx, shape);
    checkTransactionType(body, 'POST');
    const input = validate(createTransactionInput, body);
    respond(ctx, 200, await core.cards.create.mutate(input, asMerchant(ctx.state)), shape);
  });

  // Capture and auth reversal.
  router.put('/transactions', async (ctx) => {
    const body = readBody(ctx, shape);
    checkTransactionType(body, 'PUT');
    const input = validate(updateTransactionInput, body);
    respond(ctx, 200, await core.cards.update.mutate(input, asMerchant(ctx.state)), shape);
  });

  router.get('/transactions/:transactionId', async (ctx) => {
    const transaction = await core.cards.get.query(
      { transactionId: ctx.params.transactionId ?? '' },
      asMerchant(ctx.state),
    );
    respond(ctx, 200, transaction, shape);
  });

  // The original's two refund forms: query parameters answering 204, or a body answering the refund.
  router.put('/transactions/:transactionId/refund', async (ctx) => {
    const input = validate(refundInput, { ...ctx.query, transactionId: ctx.params.transactionId });
    await core.cards.refund.mutate(input, asMerchant(ctx.state));
    ctx.status = 204;
  });

  router.post('/transactions/refund/:transactionId', async (ctx) => {
    const body = readBody(ctx, xmlShapes.refund);
    const input = validate(refundInput, { ...body, transactionId: ctx.params.transactionId });
    respond(ctx, 200, await core.cards.refund.mutate(input, asMerchant(ctx.state)), xmlShapes.refund);
  });
}
