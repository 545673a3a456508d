import {
  batchOrderInput,
  batchShopperIdInput,
  createOrderInput,
  extendedShopperInput,
  orderIdInput,
} from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { createExtendedShopper, placeOrder } from './extended.ts';
import { getBatchShopper, getOrder, placeBatchOrder } from './service.ts';

export const ordersRouter = router({
  placeBatch: merchantProcedure
    .input(batchOrderInput)
    .mutation(({ ctx, input }) => placeBatchOrder(ctx, input)),
  /** The Extended API's order of an existing shopper: a card sale, so it runs its own payment phases. */
  place: merchantProcedure
    .meta({ phased: true })
    .input(createOrderInput)
    .mutation(({ ctx, input }) => placeOrder(ctx, input)),
  createShopper: merchantProcedure
    .input(extendedShopperInput)
    .mutation(({ ctx, input }) => createExtendedShopper(ctx, input)),
  get: merchantProcedure.input(orderIdInput).query(({ ctx, input }) => getOrder(ctx, input.orderId)),
  getShopper: merchantProcedure
    .input(batchShopperIdInput)
    .query(({ ctx, input }) => getBatchShopper(ctx, input.shopperId)),
});
