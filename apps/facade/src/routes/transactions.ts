import type { default as Router, RouterMiddleware } from '@koa/router';
import {
  checkTransactionType,
  createTransactionInput,
  DomainError,
  refundInput,
  type TransactionIds,
  transactionIdInput,
  updateTransactionInput,
  validate,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.cardTransaction;

/**
 * `{merchantTransactionId},{merchantId}` names the merchant's own id; another merchant's id names nothing
 * (404, as for an unknown transaction, so no other merchant's transactions can be probed).
 */
function transactionIds(segment: string, merchantId: number): TransactionIds {
  const comma = segment.lastIndexOf(',');
  if (comma === -1) return { transactionId: segment };
  const merchantTransactionId = segment.slice(0, comma);
  if (segment.slice(comma + 1).trim() !== String(merchantId)) {
    throw new DomainError(
      'TRANSACTION_NOT_FOUND',
      `no transaction with merchantTransactionId ${merchantTransactionId.slice(0, 50)} was found`,
    );
  }
  return { merchantTransactionId };
}

/**
 * The PUT refund's query parameters as the original's clients write them (its Node SDK: `cancelsubscriptions`,
 * and a vendor's amount as `vendor.{vendorId}.amount`).
 */
function refundQuery(query: Record<string, unknown>): Record<string, unknown> {
  const { amount, reason, cancelsubscriptions, cancelSubscriptions, taxamount, taxAmount } = query;
  const vendorRefundInfo = Object.entries(query).flatMap(([name, vendorAmount]) => {
    const vendorId = /^vendor\.(\d{1,15})\.amount$/.exec(name)?.[1];
    return vendorId === undefined ? [] : [{ vendorId, vendorAmount }];
  });
  return {
    amount,
    reason,
    cancelSubscriptions: cancelSubscriptions ?? cancelsubscriptions,
    taxAmount: taxAmount ?? taxamount,
    vendorAmount: query.vendorAmount ?? query.vendoramount,
    ...(vendorRefundInfo.length > 0 ? { vendorsRefundInfo: { vendorRefundInfo } } : {}),
  };
}

export function transactionRoutes(router: Router<MerchantState>, core: CoreClient): void {
  // Sale and auth-only; the body's type picks the operation, the verb must match it (see docs/conformance.md, Card transactions).
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

  // By transactionId, or as the original's `{merchantTransactionId},{merchantId}`.
  router.get('/transactions/:transactionId', async (ctx) => {
    const transaction = await core.cards.get.query(
      validate(transactionIdInput, transactionIds(ctx.params.transactionId ?? '', ctx.state.merchantId)),
      asMerchant(ctx.state),
    );
    respond(ctx, 200, transaction, shape);
  });

  // The original's refund forms: query parameters answering 204, or a body (by either id) answering the refund.
  router.put('/transactions/:transactionId/refund', async (ctx) => {
    const input = validate(refundInput, {
      ...refundQuery(ctx.query),
      transactionId: ctx.params.transactionId,
    });
    await core.refunds.create.mutate(input, asMerchant(ctx.state));
    ctx.status = 204;
  });

  /** POST refunds name the transaction by one id in the path; the body may not name it otherwise. */
  const refundBy =
    (id: 'transactionId' | 'merchantTransactionId'): RouterMiddleware<MerchantState> =>
    async (ctx) => {
      const body = readBody(ctx, xmlShapes.refund);
      const input = validate(refundInput, {
        ...body,
        transactionId: undefined,
        merchantTransactionId: undefined,
        [id]: ctx.params[id],
      });
      respond(ctx, 200, await core.refunds.create.mutate(input, asMerchant(ctx.state)), xmlShapes.refund);
    };
  router.post('/transactions/refund/:transactionId', refundBy('transactionId'));
  router.post('/transactions/refund/merchant/:merchantTransactionId', refundBy('merchantTransactionId'));

  // Cancel Pending Refund: every refund of the transaction the processor has not done yet (see
  // docs/conformance.md, Pending refunds).
  router.delete('/transactions/pending-refund/:transactionId', async (ctx) => {
    const input = validate(transactionIdInput, { transactionId: ctx.params.transactionId });
    await core.refunds.cancelPending.mutate(input, asMerchant(ctx.state));
    ctx.status = 204;
  });
}
