import { ensureSampleProduct, openDatabase, type ScryptCost, upsertMerchant } from '@paywire/core';
import { cliOperator } from './operator.ts';

/**
 * Creates a merchant with Basic credentials, or resets the password of an existing one, audited as the
 * operating system's user. `cost` is for tests alone (a cheaper hash); the CLI and the launcher hash at the
 * production cost.
 */
export async function saveMerchant(
  databaseUrl: string,
  username: string,
  password: string,
  cost?: ScryptCost,
): Promise<number> {
  const orm = await openDatabase(databaseUrl, 2);
  try {
    return await upsertMerchant(orm.em.fork(), username, password, cliOperator(), cost);
  } finally {
    await orm.close();
  }
}

/** The sandbox merchant's sample product, created on the first start only; returns its first sku. */
export async function ensureSampleCatalogue(
  databaseUrl: string,
  merchantId: number,
): Promise<{ skuId: number; skuName: string; price: string }> {
  const orm = await openDatabase(databaseUrl, 2);
  try {
    const sku = await ensureSampleProduct(orm.em.fork(), merchantId);
    const [price] = sku.pricingSettings.chargePolicy.oneTimeCharge.catalogPrices;
    if (!price) throw new Error('the sample sku has no price');
    return {
      skuId: sku.skuId,
      skuName: sku.skuName,
      price: `${price.amount.toFixed(2)} ${price.currency}`,
    };
  } finally {
    await orm.close();
  }
}
