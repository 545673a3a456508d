import { createProductInput, productIdInput } from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { createProduct, getProduct } from './service.ts';

export const catalogRouter = router({
  create: merchantProcedure.input(createProductInput).mutation(({ ctx, input }) => createProduct(ctx, input)),
  get: merchantProcedure.input(productIdInput).query(({ ctx, input }) => getProduct(ctx, input.productId)),
});
