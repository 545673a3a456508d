import type { default as Router, RouterContext } from '@koa/router';
import {
  cardTransactionBody,
  checkTransactionType,
  createTransactionInput,
  DomainError,
  refundBody,
  refundInput,
  type TransactionIds,
  transactionIdInput,
  updateTransactionInput,
  validate,
} from '@paywire/contracts';
import { z } from 'zod';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { type Body, body, noContent, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const tag = 'Card transactions';
const transaction = ok(
  'The transaction',
  body('CardTransaction', cardTransactionBody, xmlShapes.cardTransaction),
);
const refund = ok('The refund', body('Refund', refundBody, xmlShapes.refund));

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
  route(
    router,
    {
      method: 'POST',
      path: '/transactions',
      tag,
      summary: 'Sale (AUTH_CAPTURE) or authorisation (AUTH_ONLY)',
      description: 'Pay with `creditCard`, `pfToken` (hosted fields), `wallet` or a `vaultedShopperId`.',
      request: body('CreateCardTransaction', createTransactionInput, xmlShapes.cardTransaction),
      answers: [transaction],
      errors: [405],
    },
    async (ctx, { request }) => {
      const body = readBody(ctx, request.shape);
      checkTransactionType(body, 'POST');
      const input = validate(request.schema, body);
      respond(ctx, 200, await core.cards.create.mutate(input, asMerchant(ctx.state)), request.shape);
    },
  );

  // Capture and auth reversal.
  route(
    router,
    {
      method: 'PUT',
      path: '/transactions',
      tag,
      summary: 'Capture (CAPTURE) or reverse (AUTH_REVERSAL) an authorisation',
      request: body('UpdateCardTransaction', updateTransactionInput, xmlShapes.cardTransaction),
      answers: [transaction],
      errors: [405],
    },
    async (ctx, { request }) => {
      const body = readBody(ctx, request.shape);
      checkTransactionType(body, 'PUT');
      const input = validate(request.schema, body);
      respond(ctx, 200, await core.cards.update.mutate(input, asMerchant(ctx.state)), request.shape);
    },
  );

  // By transactionId, or as the original's `{merchantTransactionId},{merchantId}`.
  route(
    router,
    {
      method: 'GET',
      path: '/transactions/:transactionId',
      tag,
      summary: 'Retrieve a card transaction',
      description: "By `transactionId`, or by the merchant's id as `{merchantTransactionId},{merchantId}`.",
      params: transactionIdInput,
      answers: [transaction],
    },
    async (ctx, { params }) => {
      const transaction = await core.cards.get.query(
        validate(params, transactionIds(ctx.params.transactionId ?? '', ctx.state.merchantId)),
        asMerchant(ctx.state),
      );
      respond(ctx, 200, transaction, xmlShapes.cardTransaction);
    },
  );

  // The original's refund forms: query parameters answering 204, or a body (by either id) answering the refund.
  route(
    router,
    {
      method: 'PUT',
      path: '/transactions/:transactionId/refund',
      tag,
      summary: 'Refund, all or part (query parameters)',
      params: refundInput,
      query: z.object({
        amount: refundInput.shape.amount,
        taxAmount: refundInput.shape.taxAmount,
        reason: refundInput.shape.reason,
        cancelSubscriptions: refundInput.shape.cancelSubscriptions,
      }),
      answers: [noContent('Refunded')],
    },
    async (ctx, { params }) => {
      const input = validate(params, { ...refundQuery(ctx.query), transactionId: ctx.params.transactionId });
      await core.refunds.create.mutate(input, asMerchant(ctx.state));
      ctx.status = 204;
    },
  );

  /** POST refunds name the transaction by one id in the path; the body may not name it otherwise. */
  const refundBy =
    (id: 'transactionId' | 'merchantTransactionId') =>
    async (ctx: RouterContext<MerchantState>, { request }: { request: Body<typeof refundInput> }) => {
      const input = validate(request.schema, {
        ...readBody(ctx, request.shape),
        transactionId: undefined,
        merchantTransactionId: undefined,
        [id]: ctx.params[id],
      });
      respond(ctx, 200, await core.refunds.create.mutate(input, asMerchant(ctx.state)), request.shape);
    };
  route(
    router,
    {
      method: 'POST',
      path: '/transactions/refund/:transactionId',
      tag,
      summary: 'Refund, all or part (body), answering the refund',
      request: body('RefundRequest', refundInput, xmlShapes.refund),
      answers: [refund],
    },
    refundBy('transactionId'),
  );
  route(
    router,
    {
      method: 'POST',
      path: '/transactions/refund/merchant/:merchantTransactionId',
      tag,
      summary: "Refund by the merchant's transaction id, answering the refund",
      params: refundInput,
      request: body('RefundByMerchantTransactionIdRequest', refundInput, xmlShapes.refund),
      answers: [refund],
    },
    refundBy('merchantTransactionId'),
  );

  // Cancel Pending Refund: every refund of the transaction the processor has not done yet (see
  // docs/conformance.md, Pending refunds).
  route(
    router,
    {
      method: 'DELETE',
      path: '/transactions/pending-refund/:transactionId',
      tag,
      summary: "Cancel the transaction's pending refunds (those its processor has not done yet)",
      params: transactionIdInput,
      answers: [noContent('Cancelled')],
    },
    async (ctx, { params }) => {
      const input = validate(params, { transactionId: ctx.params.transactionId });
      await core.refunds.cancelPending.mutate(input, asMerchant(ctx.state));
      ctx.status = 204;
    },
  );
}
