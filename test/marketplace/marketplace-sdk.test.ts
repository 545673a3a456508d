import type { BlueSnapGateway } from 'bluesnap';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeVendor } from '../support/marketplace.ts';
import { publishedSdk } from '../support/published-sdk.ts';
import { type Stack, startStack } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// The published Node SDK (bluesnap@0.3.4), unchanged, against the running service: its MarketplaceGateway
// (create, update, get, getAll) and a refund of a split sale in its PUT form with vendor.{id}.amount.
// ---------------------------------------------------------------------------------------------------------

let stack: Stack;
let sdk: BlueSnapGateway;

beforeAll(async () => {
  stack = await startStack();
  sdk = publishedSdk(stack);
});

afterAll(async () => {
  await stack?.close();
});

describe('the published Node SDK, MarketplaceGateway', () => {
  it('create answers the vendor id (from Location), update null (204), get the vendor, getAll the page', async () => {
    const vendorId = await sdk.marketplace.create({ email: 'sdk@example.com', country: 'US' });
    expect(Number.isInteger(vendorId) && vendorId > 0).toBe(true);
    expect(
      await sdk.marketplace.update(vendorId, { email: 'sdk@example.com', country: 'US', zip: '02139' }),
    ).toBeNull();
    const vendor = await sdk.marketplace.get(vendorId);
    expect(vendor).toMatchObject({ vendorId, email: 'sdk@example.com', country: 'US', zip: '02139' });
    expect(vendor.verification.payoutStatus).toBe('Incomplete');
    const page = await sdk.marketplace.getAll({ pagesize: 5, gettotal: true });
    expect(page).toMatchObject({ totalResults: 1, lastPage: true });
    expect(page.vendor.map((v) => v.vendorId)).toEqual([vendorId]);
  });

  it('a split sale and its refund with a vendor amount, as the SDK sends them', async () => {
    const vendorId = await sdk.marketplace.create(completeVendor() as never);
    const sale = await sdk.transaction.card.authCapture({
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 50,
      currency: 'USD',
      creditCard: {
        cardNumber: '4263982640269299',
        securityCode: '837',
        expirationMonth: '02',
        expirationYear: '2031',
      },
      vendorInfo: { vendorId, commissionPercent: 20 },
    } as never);
    expect(sale).toMatchObject({ vendorInfo: { vendorId, commissionPercent: 20 } });
    expect(
      await sdk.refund.refund(sale.transactionId, { amount: 10, [`vendor.${vendorId}.amount`]: 4 }),
    ).toBeNull();
    const { rows } = await stack.db.query(
      'select refunded_minor::int as r from vendor_split where vendor_id = $1',
      [vendorId],
    );
    expect(rows).toEqual([{ r: 400 }]);
  });
});
