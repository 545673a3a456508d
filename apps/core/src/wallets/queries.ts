/** Every hand-written statement of wallets, named for its role; parameters as `$n`, never values in the text. */

/** A merchant's sealed wallet keys. $1 merchant id. */
export const selectWalletKeys = 'select "sealed_keys" from "wallet_keys" where "merchant_id" = $1';

/** Stores (or replaces) a merchant's sealed wallet keys. $1 merchant id, $2 the sealing. */
export const upsertWalletKeys = `insert into "wallet_keys" ("merchant_id", "sealed_keys") values ($1, $2)
  on conflict ("merchant_id") do update set "sealed_keys" = excluded."sealed_keys", "updated_at" = now()`;

/** Removes a merchant's wallet keys. $1 merchant id. */
export const deleteWalletKeys = 'delete from "wallet_keys" where "merchant_id" = $1';

/** Whether a merchant exists. $1 merchant id. */
export const merchantExists = 'select 1 from "merchant" where "id" = $1';
