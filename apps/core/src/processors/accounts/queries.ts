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
