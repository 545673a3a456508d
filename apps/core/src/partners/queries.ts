/**
 * Every hand-written statement of partners, named for its role; parameters as `$n`, never values in the text.
 */

/** Links partner $1 to merchant $2 (nothing if linked already); answers a row when the link is new. */
export const insertLink = `insert into partner_link (partner_id, merchant_id) values ($1, $2)
     on conflict do nothing returning partner_id`;

/** Removes the link of partner $1 to merchant $2; answers a row when there was one. */
export const deleteLink =
  'delete from partner_link where partner_id = $1 and merchant_id = $2 returning partner_id';

/** Every link, or partner $1's (null: all), by partner then merchant, with both usernames. */
export const listLinks = `select l.partner_id, p.username as partner, l.merchant_id, m.username as merchant, l.created_at
     from partner_link l join merchant p on p.id = l.partner_id join merchant m on m.id = l.merchant_id
     where $1::int is null or l.partner_id = $1 order by l.partner_id, l.merchant_id`;

/** Whether partner $1 may act for merchant $2. */
export const isLinked = 'select 1 from partner_link where partner_id = $1 and merchant_id = $2';

/**
 * Creates console user $2 of merchant $1 unless a merchant or another console user has the username: $3
 * password hash, $4 first and $5 last name, $6 email, $7 permissions, $8 the merchant that created it. No
 * row when the username is taken.
 */
export const insertConsoleUser = `insert into console_user
       (merchant_id, username, password_hash, first_name, last_name, email, permissions, created_by)
     select $1, $2::varchar, $3, $4, $5, $6, $7::jsonb, $8
     where not exists (select 1 from merchant where username = $2::varchar)
     on conflict (username) do nothing
     returning id`;
