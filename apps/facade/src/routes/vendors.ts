import type Router from '@koa/router';
import {
  createVendorInput,
  listVendorsInput,
  updateVendorInput,
  validate,
  vendorBody,
  vendorIdInput,
  vendorPageBody,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond, respondCreated } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, created, noContent, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const { vendor, vendors } = xmlShapes;
const tag = 'Marketplace';

/** A marketplace's vendors (docs/marketplace.md): the original's Create, Update, Retrieve and Retrieve All. */
export function vendorRoutes(router: Router<MerchantState>, core: CoreClient): void {
  const marketplace = core.marketplace;

  // As the original: 201, the vendor's URL in Location (its SDK reads the id from there), no body.
  route(
    router,
    {
      method: 'POST',
      path: '/vendors',
      tag,
      summary:
        'Create a vendor (its bank account and identity numbers are kept sealed, shown by their last four)',
      request: body('CreateVendor', createVendorInput, vendor),
      answers: [created('The vendor URL, ending in its id')],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      const { vendorId } = await marketplace.createVendor.mutate(input, asMerchant(ctx.state));
      respondCreated(ctx, `/services/2/vendors/${vendorId}`);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/vendors',
      tag,
      summary: "The merchant's vendors, newest first, a page at a time",
      query: listVendorsInput,
      answers: [ok('A page of vendors', body('VendorPage', vendorPageBody, vendors))],
    },
    async (ctx, { query }) => {
      const input = validate(query, ctx.query);
      respond(ctx, 200, await marketplace.listVendors.query(input, asMerchant(ctx.state)), vendors);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/vendors/:vendorId',
      tag,
      summary: 'Retrieve a vendor with its onboarding status (verification)',
      params: vendorIdInput,
      answers: [ok('The vendor', body('Vendor', vendorBody, vendor))],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(ctx, 200, await marketplace.getVendor.query(input, asMerchant(ctx.state)), vendor);
    },
  );

  // As the original: 204 with no body.
  route(
    router,
    {
      method: 'PUT',
      path: '/vendors/:vendorId',
      tag,
      summary:
        'Update a vendor: the fields sent replace the stored ones; a payout method sent replaces the old',
      params: vendorIdInput,
      request: body('UpdateVendor', updateVendorInput, vendor),
      answers: [noContent('Updated; no body')],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, {
        ...readBody(ctx, request.shape),
        vendorId: ctx.params.vendorId,
      });
      await marketplace.updateVendor.mutate(input, asMerchant(ctx.state));
      ctx.status = 204;
    },
  );
}
