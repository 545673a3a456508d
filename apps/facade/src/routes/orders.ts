import type Router from '@koa/router';
import {
  batchOrderBody,
  batchOrderInput,
  batchShopperBody,
  batchShopperIdInput,
  createOrderInput,
  extendedShopperInput,
  type Order,
  orderBody,
  orderIdInput,
  validate,
} from '@paywire/contracts';
import type { Context } from 'koa';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond, respondCreated } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, created, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const tag = 'Orders';
const order = body('Order', orderBody, xmlShapes.order);

/** An order's links (invoice url, a SEPA debit's pre-notification-translation-ref) on the public base URL. */
function withLinks(ctx: Context, order: Order): Order {
  return {
    ...order,
    postSaleInfo: {
      invoices: order.postSaleInfo.invoices.map((invoice) => ({
        ...invoice,
        url: publicUrl(ctx, invoice.url),
        financialTransactions: invoice.financialTransactions.map((transaction) =>
          transaction.paymentMethod === 'SEPA Direct Debit'
            ? {
                ...transaction,
                sepaDirectDebit: {
                  ...transaction.sepaDirectDebit,
                  preNotificationTranslationRef: publicUrl(
                    ctx,
                    transaction.sepaDirectDebit.preNotificationTranslationRef,
                  ),
                },
              }
            : transaction,
        ),
      })),
    },
  };
}

/** Order placement in one batch (see docs/conformance.md, Batch order placement), and the orders and shoppers it creates. */
export function orderRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'POST',
      path: '/batch/order-placement',
      tag,
      summary: 'Place an order for a new shopper, paid by SEPA direct debit',
      request: body('BatchOrderRequest', batchOrderInput, xmlShapes.batchOrder),
      answers: [ok('The shopper and the order', body('BatchOrder', batchOrderBody, xmlShapes.batchOrder))],
    },
    async (ctx, { request }) => {
      // An invalid IBAN is named in the error, never echoed.
      const input = validate(request.schema, readBody(ctx, request.shape));
      const { shopper, order } = await core.orders.placeBatch.mutate(input, asMerchant(ctx.state));
      respond(ctx, 200, { shopper, order: withLinks(ctx, order) }, xmlShapes.batchOrder);
    },
  );

  // The Extended API (see docs/conformance.md, Extended API): an order of an existing shopper, paid with its
  // vaulted card, answers 201 with the order and its URL in Location; a new shopper 201 with its URL only.
  route(
    router,
    {
      method: 'POST',
      path: '/orders',
      tag,
      summary:
        "Place an order for an existing shopper, paid with one of its vaulted cards (the Extended API's)",
      request: body('CreateOrder', createOrderInput, xmlShapes.order),
      answers: [
        { status: 201, description: 'The order', body: order, headers: { Location: 'The order URL' } },
      ],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      const order = await core.orders.place.mutate(input, asMerchant(ctx.state));
      ctx.set('Location', publicUrl(ctx, `/services/2/orders/${order.orderId}`));
      respond(ctx, 201, withLinks(ctx, order), xmlShapes.order);
    },
  );

  route(
    router,
    {
      method: 'POST',
      path: '/shoppers',
      tag,
      summary: "Create a shopper with its cards (the Extended API's; a vaulted shopper)",
      request: body('CreateShopper', extendedShopperInput, xmlShapes.shopper),
      answers: [created('The shopper URL')],
    },
    async (ctx, { request }) => {
      // A card number or security code is named in an error, never echoed.
      const input = validate(request.schema, readBody(ctx, request.shape));
      const { shopperId } = await core.orders.createShopper.mutate(input, asMerchant(ctx.state));
      respondCreated(ctx, `/services/2/shoppers/${shopperId}`);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/orders/:orderId',
      tag,
      summary: 'Retrieve an order',
      params: orderIdInput,
      answers: [ok('The order', order)],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      const order = await core.orders.get.query(input, asMerchant(ctx.state));
      respond(ctx, 200, withLinks(ctx, order), xmlShapes.order);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/shoppers/:shopperId',
      tag,
      summary: 'Retrieve a shopper created by an order',
      params: batchShopperIdInput,
      answers: [ok('The shopper', body('Shopper', batchShopperBody, xmlShapes.shopper))],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(ctx, 200, await core.orders.getShopper.query(input, asMerchant(ctx.state)), xmlShapes.shopper);
    },
  );
}
