/**
 * Every hand-written statement of the account updater, named for its role; parameters as `$n`, never values
 * in the text.
 */

/** A new batch ($1 merchant, $2 its batch id, $3 submitted, $4 due); no row when the batch id is taken. */
export const insertBatch = `insert into account_update_batch (merchant_id, batch_id, submitted_at, due_at)
    values ($1, $2, $3, $4) on conflict (merchant_id, batch_id) do nothing returning id`;

/** The batch's ($1, of merchant $2) lines ($3, a JSON array: one JSON parameter, not one per value). */
export const insertLines = `insert into account_update (batch_id, merchant_id, position, merchant_updater_id,
      card_fingerprint, card_type, last_four, expiration_month, expiration_year, submission_code, outcome,
      updated_card)
    select $1, $2, v.position, v.merchant_updater_id, v.card_fingerprint, v.card_type, v.last_four,
      v.expiration_month, v.expiration_year, v.submission_code, v.outcome, v.updated_card
    from jsonb_to_recordset($3::jsonb) as v(position integer, merchant_updater_id text, card_fingerprint text,
      card_type text, last_four text, expiration_month text, expiration_year text, submission_code text,
      outcome text, updated_card jsonb)`;

/** The merchant's ($1) batch by its batch id ($2). */
export const batchOf = `select id, answered_at from account_update_batch where merchant_id = $1 and batch_id = $2`;

/** A batch's ($1) lines, in the order they were sent. */
export const linesOf = `select merchant_updater_id, card_type, last_four, expiration_month, expiration_year,
      submission_code, outcome, updated_card
    from account_update where batch_id = $1 order by position`;

/**
 * Takes one batch whose answer is due by its merchant's clock ($1 core's now, $2 live mode), locked for the
 * run's transaction; a batch another run holds is skipped.
 */
export const claimDueBatch = `select b.id, b.merchant_id, m.merchant_now
    from account_update_batch b
    join (select id, $1::timestamptz + make_interval(secs => case when $2::boolean then 0 else clock_offset_seconds end)
            as merchant_now from merchant) m on m.id = b.merchant_id
    where b.answered_at is null and b.due_at <= m.merchant_now
    order by b.due_at limit 1
    for update of b skip locked`;

/**
 * The vaulted cards the batch's ($1) answers change: cards of its merchant still in a vault with a submitted
 * card's number, locked, with their shopper and the subscriptions that charge them.
 */
export const cardsToUpdate = `select l.id as line_id, l.outcome, c.id as card_id, c.shopper_id, c.fingerprint, c.sealed_number,
      c.brand, c.last_four, c.expiration_month, c.expiration_year, s.merchant_shopper_id,
      (select string_agg(sub.id::text, ',' order by sub.id) from subscription sub
        where sub.card_id = c.id and sub.status in ('ACTIVE', 'SUSPENDED')) as linked_subscriptions
    from account_update l
    join stored_card c on c.merchant_id = l.merchant_id and c.fingerprint = l.card_fingerprint
      and c.removed_at is null
    join shopper s on s.id = c.shopper_id
    where l.batch_id = $1 and l.outcome in ('NUMBER_CHANGED', 'EXPIRY_CHANGED', 'CLOSED', 'CONTACT_CARDHOLDER')
    order by l.position, c.id
    for update of c`;

/** A vaulted card ($1) given a new expiry ($2 month, $3 year). */
export const renewCard = `update stored_card set expiration_month = $2, expiration_year = $3 where id = $1`;

/**
 * A vaulted card ($1) given its replacement: number ($3 sealed, $2 fingerprint), last four ($4) and expiry
 * ($5, $6); unless its shopper holds the replacement already, whose card then stays the one charged.
 */
export const replaceCard = `update stored_card c set fingerprint = $2, sealed_number = $3, last_four = $4,
      expiration_month = $5, expiration_year = $6
    where c.id = $1 and not exists (
      select 1 from stored_card o where o.shopper_id = c.shopper_id and o.fingerprint = $2)
    returning c.id`;

/** A vaulted card ($1) its issuer closed ($2): removed as a merchant's removal does, marked closed. */
export const closeCard = `update stored_card set sealed_number = null, fingerprint = null, billing_contact = null,
      removed_at = $2, closed_at = $2
    where id = $1`;

/** Marks a batch ($1) answered at $2. */
export const markAnswered = `update account_update_batch set answered_at = $2 where id = $1`;

/**
 * Answered batches ($1: core's now, $2 live mode) older than the 45 days their answers are kept, by their
 * merchant's clock; their lines go with them.
 */
export const deleteExpiredBatches = `delete from account_update_batch b using merchant m
    where m.id = b.merchant_id and b.answered_at is not null
      and b.answered_at < $1::timestamptz
        + make_interval(secs => case when $2::boolean then 0 else m.clock_offset_seconds end) - interval '45 days'`;
