import {
  createShopperInput,
  merchantShopperIdInput,
  shopperIdInput,
  updateShopperInput,
} from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import {
  createShopper,
  deleteShopper,
  deleteShopperByMerchantId,
  getShopper,
  getShopperByMerchantId,
  updateShopper,
} from './service.ts';

export const shoppersRouter = router({
  create: merchantProcedure.input(createShopperInput).mutation(({ ctx, input }) => createShopper(ctx, input)),
  update: merchantProcedure.input(updateShopperInput).mutation(({ ctx, input }) => updateShopper(ctx, input)),
  delete: merchantProcedure
    .input(shopperIdInput)
    .mutation(({ ctx, input }) => deleteShopper(ctx, input.vaultedShopperId)),
  deleteByMerchantShopperId: merchantProcedure
    .input(merchantShopperIdInput)
    .mutation(({ ctx, input }) => deleteShopperByMerchantId(ctx, input.merchantShopperId)),
  get: merchantProcedure
    .input(shopperIdInput)
    .query(({ ctx, input }) => getShopper(ctx, input.vaultedShopperId)),
  getByMerchantShopperId: merchantProcedure
    .input(merchantShopperIdInput)
    .query(({ ctx, input }) => getShopperByMerchantId(ctx, input.merchantShopperId)),
});
