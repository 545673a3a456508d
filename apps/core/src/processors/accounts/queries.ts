/**
 * Every hand-written statement of processor accounts, named for its role; parameters as `$n`, never values
 * in the text.
 */

/** The merchants whose route (a rule or the default) names an enabled sandbox account, with their names. No parameters. */
export const liveReadiness = `select * from (select m.id as merchant_id, m.username,
              array(select a.name from processor_account a
                     where a.merchant_id = m.id and a.enabled and a.connector = 'sandbox'
                       and (a.is_default or exists (select 1 from processor_route r where r.account_id = a.id))
                     order by a.name) as sandbox_accounts
         from merchant m
        order by m.id) where cardinality(sandbox_accounts) > 0`;

/**
 * A merchant's routing table, as two columns of its facts (merchants/queries.ts; `m` is the merchant): its
 * enabled accounts and its rules in order, so a payment is routed with no read of its own.
 */
export const routingColumns = `(select json_agg(json_build_object('id', a.id, 'name', a.name, 'connector', a.connector,
      'environment', a.environment, 'merchantAccount', a.merchant_account, 'currencies', a.currencies,
      'sealedCredentials', a.sealed_credentials, 'isDefault', a.is_default) order by a.id)
    from processor_account a where a.merchant_id = m.id and a.enabled) as accounts,
  (select json_agg(json_build_object('accountId', r.account_id, 'currency', r.currency, 'cardBrand', r.card_brand,
      'minAmountMinor', r.min_amount_minor, 'maxAmountMinor', r.max_amount_minor, 'percent', r.percent)
      order by r.position)
    from processor_route r where r.merchant_id = m.id) as routes`;
