import {
  createProductInput,
  customParameterIdInput,
  customParameterInput,
  productIdInput,
  updateCustomParameterInput,
} from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { createCustomParameter, getCustomParameter, updateCustomParameter } from './custom-parameters.ts';
import { createProduct, getProduct } from './service.ts';

export const catalogRouter = router({
  create: merchantProcedure.input(createProductInput).mutation(({ ctx, input }) => createProduct(ctx, input)),
  get: merchantProcedure.input(productIdInput).query(({ ctx, input }) => getProduct(ctx, input.productId)),
  createCustomParameter: merchantProcedure
    .input(customParameterInput)
    .mutation(({ ctx, input }) => createCustomParameter(ctx, input)),
  updateCustomParameter: merchantProcedure
    .input(updateCustomParameterInput)
    .mutation(({ ctx, input }) => updateCustomParameter(ctx, input)),
  getCustomParameter: merchantProcedure
    .input(customParameterIdInput)
    .query(({ ctx, input }) => getCustomParameter(ctx, input.customParamId)),
});
