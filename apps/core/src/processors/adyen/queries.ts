/** The statements of Adyen's notifications (notifications.ts); parameters as `$n`, never values in the text. */

/** The Adyen account ($1) a notification URL names, with its sealed credentials (processors/directory.ts). */
export const notificationAccount = `select id, merchant_id, name, sealed_credentials from processor_account
     where id = $1 and connector = 'adyen'`;

/**
 * Stores a notification's items in one statement, each once: $1 account, $2 merchant, then one array per
 * column, an element per item: $3 pspReference, $4 originalReference, $5 merchantReference, $6 eventCode,
 * $7 success, $8 the item as sent, $9 whether it is acted on (an item that is not is stored as processed: no
 * second transaction for it). An item whose (account, pspReference, eventCode, success) is stored already
 * returns no row: Adyen repeats a notification until it is acknowledged.
 */
export const storeNotifications = `insert into processor_notification (account_id, merchant_id, psp_reference,
       original_reference, merchant_reference, event_code, success, body, processed_at)
     select $1::integer, $2::integer, t.psp_reference, t.original_reference, t.merchant_reference, t.event_code,
       t.success, t.body, case when t.acted_on then null else now() end
     from unnest($3::varchar[], $4::varchar[], $5::varchar[], $6::varchar[], $7::boolean[], $8::jsonb[], $9::boolean[])
       as t(psp_reference, original_reference, merchant_reference, event_code, success, body, acted_on)
     on conflict on constraint processor_notification_once do nothing
     returning id, psp_reference, event_code, success, processed_at is null as to_process`;

/**
 * Takes a stored item ($1) for processing, locked until the transaction ends; no row when it is processed
 * already or another core is processing it now.
 */
export const takeNotification = `select id, account_id, merchant_id, body from processor_notification
     where id = $1 and processed_at is null for update skip locked`;

/** Marks an item ($1) processed. */
export const markProcessed = 'update processor_notification set processed_at = now() where id = $1';

/** Items not processed $1 seconds after they arrived (core died between storing and processing), $2 at most. */
export const unprocessedNotifications = `select id from processor_notification
     where processed_at is null and received_at < now() - make_interval(secs => $1)
     order by received_at limit $2`;

/**
 * The attempt an item confirms, locked: AWAITING, or still PENDING when the confirmation outran the answer
 * to our call; on account $1 of merchant $2, of a kind in $3. Ours is the one Adyen's answer named by the
 * item's pspReference ($7, the modification's own), or whose reference is the item's merchantReference
 * ($4); failing both, for an attempt whose answer never came (no pspReference kept), the oldest of that
 * amount ($6) on the authorization the item names ($5, originalReference).
 */
export const awaitingAttempt = `select a.id, a.reference, a.kind, a.amount_minor, a.transaction_id
     from payment_attempt a join card_transaction t on t.id = a.transaction_id
     where a.state in ('AWAITING', 'PENDING') and a.processor_account_id = $1 and a.merchant_id = $2
       and a.kind = any($3::text[])
       and (a.processor_reference = $7 or a.reference::text = $4
         or (a.processor_reference is null and t.processor_reference = $5 and a.amount_minor = $6))
     order by a.processor_reference = $7 desc, a.reference::text = $4 desc, a.created_at
     limit 1 for update of a`;

/** Settles an AWAITING or PENDING attempt ($1) as $2 (DONE or FAILED). */
export const settleAwaitingAttempt = `update payment_attempt set state = $2, resolved_at = now()
     where id = $1 and state in ('AWAITING', 'PENDING')`;

/** Removes the refund row an attempt ($1) stood for, when the processor reports that refund failed. */
export const removeRefundOfAttempt = `delete from refund where attempt_reference = $1
     returning id::float8 as id, transaction_id::float8 as transaction_id`;

/** The transaction of merchant $1 on account $2 whose authorization's pspReference is $3. */
export const transactionByPspReference = `select id from card_transaction
     where merchant_id = $1 and processor_account_id = $2 and processor_reference = $3`;

/**
 * Adyen's AUTHORISATION item for attempt $2 on account $1, an approval first (Adyen repeats an item until it
 * is acknowledged; an approval and a refusal of one attempt cannot both be true): what an inquiry answers.
 */
export const authorisationOfAttempt = `select body from processor_notification
     where account_id = $1 and event_code = 'AUTHORISATION' and merchant_reference = $2
     order by success desc, received_at desc limit 1`;

/**
 * What Adyen said of the technical cancel of attempt $2 on account $1: a success if any item says so, else a
 * refusal, else no row (not confirmed yet). The item names the payment's merchantReference (the attempt's)
 * or the cancel's own reference, which is the attempt's with a suffix ($3).
 */
export const technicalCancelOutcome = `select bool_or(success) as confirmed from processor_notification
     where account_id = $1 and event_code = 'TECHNICAL_CANCEL' and merchant_reference in ($2, $3)
     having count(*) > 0`;
