import { batchOrderInput, batchShopperIdInput, orderIdInput } from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { getBatchShopper, getOrder, placeBatchOrder } from './service.ts';

export const ordersRouter = router({
  placeBatch: merchantProcedure
    .input(batchOrderInput)
    .mutation(({ ctx, input }) => placeBatchOrder(ctx, input)),
  get: merchantProcedure.input(orderIdInput).query(({ ctx, input }) => getOrder(ctx, input.orderId)),
  getShopper: merchantProcedure
    .input(batchShopperIdInput)
    .query(({ ctx, input }) => getBatchShopper(ctx, input.shopperId)),
});
