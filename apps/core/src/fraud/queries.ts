/**
 * Every hand-written statement of fraud screening, named for its role; parameters as `$n`, never values in
 * the text.
 */

/**
 * Serialises the screenings of one card and one IP address until the transaction ends: $1 the lock keys'
 * texts, taken in one order so two screenings never wait on each other crosswise.
 */
export const lockScreening = `select pg_advisory_xact_lock(k) from (
    select hashtextextended(t, 7) as k from unnest($1::text[]) t order by 1) keys`;

/**
 * Sales of merchant $1 that passed screening since $4: with one of card fingerprints $2 (the card's under each
 * live fingerprint key), and from IP address $3.
 */
export const recentScreenings = `select
    count(*) filter (where card_fingerprint = any($2::varchar[]))::int as card_count,
    count(*) filter (where ip_address = $3)::int as ip_count
  from fraud_screening
  where merchant_id = $1 and screened_at > $4 and (card_fingerprint = any($2::varchar[]) or ip_address = $3)`;

/**
 * Records a screened sale of merchant $1 (card fingerprint $2, IP address $3, at $4 by its clock) and removes a
 * few of the merchant's rows that no hour-long window ($5: $4 less an hour) reaches any more.
 */
export const recordScreening = `with spent as (
    delete from fraud_screening where id in (
      select id from fraud_screening where merchant_id = $1 and screened_at <= $5 order by screened_at limit 20))
  insert into fraud_screening (merchant_id, card_fingerprint, ip_address, screened_at)
  values ($1, $2, $3, $4)`;

/** Replaces merchant $1's rules with $2 (fraud/rules.ts, FraudRules, as JSON). */
export const replaceSettings = `insert into fraud_settings (merchant_id, rules, updated_at) values ($1, $2::jsonb, now())
  on conflict (merchant_id) do update set rules = excluded.rules, updated_at = excluded.updated_at`;
