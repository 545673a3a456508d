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

/**
 * Registers Apple Pay domains ($2) for merchant $1: its onboarding row is made the first time, later ones add
 * to its domains (each once, in order). Returns the row's id and domains.
 */
export const registerApplePayDomains = `insert into "wallet_onboarding" ("merchant_id", "domains")
  values ($1, array(select distinct d from unnest($2::text[]) d order by 1))
  on conflict ("merchant_id") do update
    set "domains" = array(select distinct d from unnest("wallet_onboarding"."domains" || excluded."domains") d order by 1),
        "updated_at" = now()
  returning "id", "domains"`;

/** Merchant $1's domains with $2 added and $3 removed; no row when it never onboarded. */
export const changeApplePayDomains = `update "wallet_onboarding"
  set "domains" = array(select distinct d from unnest("domains" || $2::text[]) d where d <> all($3::text[]) order by 1),
      "updated_at" = now()
  where "merchant_id" = $1 returning "id", "domains"`;

/** Onboarding $1 of merchant $2: its domains. */
export const selectApplePayOnboarding = `select "id", "domains" from "wallet_onboarding"
  where "id" = $1 and "merchant_id" = $2`;

/** Whether merchant $1 registered domain $2. */
export const applePayDomainRegistered = `select 1 from "wallet_onboarding"
  where "merchant_id" = $1 and $2 = any("domains")`;
