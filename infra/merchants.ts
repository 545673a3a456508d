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
): Promise<{ productName: string; skuId: number; skuName: string; price: string }> {
  const orm = await openDatabase(databaseUrl, 2);
  try {
    const product = await ensureSampleProduct(orm.em.fork(), merchantId);
    const [sku] = product.skus;
    if (!sku) throw new Error('the sample product has no sku');
    return {
      productName: product.productName,
      skuId: sku.skuId,
      skuName: sku.skuName,
      price: `${sku.price.amount.toFixed(2)} ${sku.price.currency}`,
    };
  } finally {
    await orm.close();
  }
}
