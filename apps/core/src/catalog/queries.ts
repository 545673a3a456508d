/**
 * Every hand-written statement of catalog, named for its role; parameters as `$n`, never values in the text.
 */

/** Locks the merchant's row: two launchers starting together make one sample product. */
export const lockMerchant = 'select id from merchant where id = $1 for update';

/** A renamed product's skus: each sku's name is "{product name} - {contract name}". */
export const renameProductSkus = `update catalog_sku set name = $2 || ' - ' || contract_name where product_id = $1`;
