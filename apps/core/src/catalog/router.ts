import {
  createProductInput,
  createSkuInput,
  customParameterIdInput,
  customParameterInput,
  productIdInput,
  skuIdInput,
  updateCustomParameterInput,
  updateProductInput,
  updateSkuInput,
} from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { createCustomParameter, getCustomParameter, updateCustomParameter } from './custom-parameters.ts';
import { createProduct, createSku, getProduct, getSku, updateProduct, updateSku } from './service.ts';

export const catalogRouter = router({
  create: merchantProcedure.input(createProductInput).mutation(({ ctx, input }) => createProduct(ctx, input)),
  update: merchantProcedure.input(updateProductInput).mutation(({ ctx, input }) => updateProduct(ctx, input)),
  get: merchantProcedure.input(productIdInput).query(({ ctx, input }) => getProduct(ctx, input.productId)),
  createSku: merchantProcedure.input(createSkuInput).mutation(({ ctx, input }) => createSku(ctx, input)),
  updateSku: merchantProcedure.input(updateSkuInput).mutation(({ ctx, input }) => updateSku(ctx, input)),
  getSku: merchantProcedure.input(skuIdInput).query(({ ctx, input }) => getSku(ctx, input.skuId)),
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
