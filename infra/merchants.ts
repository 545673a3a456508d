import { openDatabase, upsertMerchant } from '@paywire/core';

/** Creates a merchant with Basic credentials, or resets the password of an existing one. */
export async function saveMerchant(databaseUrl: string, username: string, password: string): Promise<number> {
  const orm = await openDatabase(databaseUrl, 2);
  try {
    return await upsertMerchant(orm.em.fork(), username, password);
  } finally {
    await orm.close();
  }
}
