import type Router from '@koa/router';
import { batchOrderInput, batchShopperIdInput, type Order, orderIdInput, validate } from '@paywire/contracts';
import type { Context } from 'koa';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

/** An order's links (invoice url, pre-notification-translation-ref) on the public base URL. */
function withLinks(ctx: Context, order: Order): Order {
  return {
    ...order,
    postSaleInfo: {
      invoices: order.postSaleInfo.invoices.map((invoice) => ({
        ...invoice,
        url: publicUrl(ctx, invoice.url),
        financialTransactions: invoice.financialTransactions.map((transaction) => ({
          ...transaction,
          sepaDirectDebit: {
            ...transaction.sepaDirectDebit,
            preNotificationTranslationRef: publicUrl(
              ctx,
              transaction.sepaDirectDebit.preNotificationTranslationRef,
            ),
          },
        })),
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
