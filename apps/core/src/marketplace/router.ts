import { createVendorInput, listVendorsInput, updateVendorInput, vendorIdInput } from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { createVendor, getVendor, listVendors, updateVendor } from './vendors.ts';

export const marketplaceRouter = router({
  createVendor: merchantProcedure
    .input(createVendorInput)
    .mutation(({ ctx, input }) => createVendor(ctx, input)),
  updateVendor: merchantProcedure
    .input(updateVendorInput)
    .mutation(({ ctx, input }) => updateVendor(ctx, input)),
  getVendor: merchantProcedure.input(vendorIdInput).query(({ ctx, input }) => getVendor(ctx, input.vendorId)),
  listVendors: merchantProcedure.input(listVendorsInput).query(({ ctx, input }) => listVendors(ctx, input)),
});
