import type Router from '@koa/router';
import {
  batchOrderInput,
  batchShopperIdInput,
  createOrderInput,
  extendedShopperInput,
  type Order,
  orderIdInput,
  validate,
} from '@paywire/contracts';
import type { Context } from 'koa';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

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
  router.post('/batch/order-placement', async (ctx) => {
    // An invalid IBAN is named in the error, never echoed.
    const input = validate(batchOrderInput, readBody(ctx, xmlShapes.batchOrder));
    const { shopper, order } = await core.orders.placeBatch.mutate(input, asMerchant(ctx.state));
    respond(ctx, 200, { shopper, order: withLinks(ctx, order) }, xmlShapes.batchOrder);
  });

  // The Extended API (see docs/conformance.md, Extended API): an order of an existing shopper, paid with its
  // vaulted card, answers 201 with the order and its URL in Location; a new shopper 201 with its URL only.
  router.post('/orders', async (ctx) => {
    const input = validate(createOrderInput, readBody(ctx, xmlShapes.order));
    const order = await core.orders.place.mutate(input, asMerchant(ctx.state));
    ctx.set('Location', publicUrl(ctx, `/services/2/orders/${order.orderId}`));
    respond(ctx, 201, withLinks(ctx, order), xmlShapes.order);
  });

  router.post('/shoppers', async (ctx) => {
    // A card number or security code is named in an error, never echoed.
    const input = validate(extendedShopperInput, readBody(ctx, xmlShapes.shopper));
    const { shopperId } = await core.orders.createShopper.mutate(input, asMerchant(ctx.state));
    ctx.status = 201;
    ctx.set('Location', publicUrl(ctx, `/services/2/shoppers/${shopperId}`));
    ctx.body = '';
  });

  router.get('/orders/:orderId', async (ctx) => {
    const input = validate(orderIdInput, ctx.params);
    const order = await core.orders.get.query(input, asMerchant(ctx.state));
    respond(ctx, 200, withLinks(ctx, order), xmlShapes.order);
  });

  router.get('/shoppers/:shopperId', async (ctx) => {
    const input = validate(batchShopperIdInput, ctx.params);
    respond(ctx, 200, await core.orders.getShopper.query(input, asMerchant(ctx.state)), xmlShapes.shopper);
  });
}
