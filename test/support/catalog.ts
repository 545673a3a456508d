import { expect } from 'vitest';
import type { CallOptions, client } from './http.ts';

type Api = ReturnType<typeof client>;

/** The id at the end of a 201's Location. */
export function createdId(reply: { status: number; text: string; headers: Headers }): number {
  expect(reply.status, reply.text).toBe(201);
  return Number((reply.headers.get('location') ?? '').split('/').pop());
}

/** A one-time sku as the Extended API's Create SKU takes it: a contract name and one price. */
export function skuRequest(productId: number, contractName: string, amount: string, currency: string) {
  return {
    contractName,
    productId,
    skuType: 'DIGITAL',
    pricingSettings: {
      chargePolicyType: 'ONE TIME PAYMENT',
      chargePolicy: { oneTimeCharge: { catalogPrices: [{ basePrice: true, currency, amount }] } },
    },
  };
}

/**
 * A product and its skus made through the Extended API (POST /catalog/products, POST /catalog/skus), each
 * sku given as [contract name, amount, currency]: the product's id and the skus' ids, in order.
 */
export async function createCatalogue(
  api: Api,
  productName: string,
  skus: ReadonlyArray<readonly [string, string, string]>,
  options: CallOptions = {},
): Promise<{ productId: number; skuIds: number[] }> {
  const productId = createdId(
    await api.post(
      '/catalog/products',
      { productName, productShortDescription: `${productName}, for the tests` },
      options,
    ),
  );
  const skuIds: number[] = [];
  for (const [contractName, amount, currency] of skus)
    skuIds.push(
      createdId(
        await api.post('/catalog/skus', skuRequest(productId, contractName, amount, currency), options),
      ),
    );
  return { productId, skuIds };
}
