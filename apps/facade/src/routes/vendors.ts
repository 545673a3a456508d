import type Router from '@koa/router';
import {
  createVendorInput,
  listVendorsInput,
  updateVendorInput,
  validate,
  vendorIdInput,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

/** A marketplace's vendors (docs/marketplace.md): the original's Create, Update, Retrieve and Retrieve All. */
export function vendorRoutes(router: Router<MerchantState>, core: CoreClient): void {
  const { vendor, vendors } = xmlShapes;
  const marketplace = core.marketplace;

  // As the original: 201, the vendor's URL in Location (its SDK reads the id from there), no body.
  router.post('/vendors', async (ctx) => {
    const input = validate(createVendorInput, readBody(ctx, vendor));
    const { vendorId } = await marketplace.createVendor.mutate(input, asMerchant(ctx.state));
    ctx.status = 201;
    ctx.set('Location', publicUrl(ctx, `/services/2/vendors/${vendorId}`));
    ctx.body = '';
  });

  router.get('/vendors', async (ctx) => {
    const input = validate(listVendorsInput, ctx.query);
    respond(ctx, 200, await marketplace.listVendors.query(input, asMerchant(ctx.state)), vendors);
  });

  router.get('/vendors/:vendorId', async (ctx) => {
    const input = validate(vendorIdInput, ctx.params);
    respond(ctx, 200, await marketplace.getVendor.query(input, asMerchant(ctx.state)), vendor);
  });

  // As the original: 204 with no body.
  router.put('/vendors/:vendorId', async (ctx) => {
    const input = validate(updateVendorInput, { ...readBody(ctx, vendor), vendorId: ctx.params.vendorId });
    await marketplace.updateVendor.mutate(input, asMerchant(ctx.state));
    ctx.status = 204;
  });
}
