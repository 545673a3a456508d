/**
 * Every hand-written statement of processor accounts, named for its role; parameters as `$n`, never values
 * in the text.
 */

/**
 * Per merchant, what live mode needs of its processor setup: whether an enabled live non-sandbox account is
 * on its route (a rule's or the default), and the names of the sandbox accounts its rules or default name.
 * No parameters.
 */
export const liveReadiness = `select m.id as merchant_id, m.username,
              exists (select 1 from processor_account a
                       where a.merchant_id = m.id and a.enabled and a.environment = 'live'
                         and a.connector <> 'sandbox'
                         and (a.is_default or exists (select 1 from processor_route r where r.account_id = a.id)))
                as has_live_account,
              array(select a.name from processor_account a
                     where a.merchant_id = m.id and a.enabled and a.connector = 'sandbox'
                       and (a.is_default or exists (select 1 from processor_route r where r.account_id = a.id))
                     order by a.name) as sandbox_accounts
         from merchant m
        order by m.id`;
