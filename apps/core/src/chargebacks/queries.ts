/** The chargebacks capability's statements (DEVELOPERS.md, Where a statement goes). */

/** A chargeback row as the service reads it. */
export interface ChargebackRow {
  id: string;
  transaction_id: string;
  merchant_transaction_id: string | null;
  processor_account_id: number | null;
  amount_minor: string;
  currency: string;
  reason_code: string | null;
  reason: string | null;
  status: string;
  created_at: string;
  updated_at: string;
}

const columns = `c.id, c.transaction_id, t.merchant_transaction_id, c.processor_account_id, c.amount_minor,
       c.currency, c.reason_code, c.reason, c.status, c.created_at, c.updated_at`;

/**
 * Opens a dispute once per (account, dispute reference): $1 merchant, $2 transaction, $3 account (null: the
 * sandbox), $4 the dispute's reference, $5 amount in minor units, $6 currency, $7 reason code, $8 reason,
 * $9 status, $10 when (the merchant's clock). No row when it is open already.
 */
export const openChargeback = `insert into chargeback (merchant_id, transaction_id, processor_account_id,
       psp_reference, amount_minor, currency, reason_code, reason, status, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
     on conflict on constraint chargeback_once do nothing returning id`;

/** Chargeback $1 of merchant $2, locked for a status change. */
export const chargebackForUpdate = `select ${columns}
     from chargeback c join card_transaction t on t.id = c.transaction_id
    where c.id = $1 and c.merchant_id = $2 for update of c`;

/** The dispute $3 of merchant $1 on processor account $2 (null: the sandbox), locked for a status change. */
export const chargebackOfDispute = `select ${columns}
     from chargeback c join card_transaction t on t.id = c.transaction_id
    where c.merchant_id = $1 and c.processor_account_id is not distinct from $2::int and c.psp_reference = $3
      for update of c`;

/** Merchant $1's chargebacks: chargeback $2 or all, of transaction $3 or all, oldest first. */
export const chargebacksOf = `select ${columns}
     from chargeback c join card_transaction t on t.id = c.transaction_id
    where c.merchant_id = $1 and ($2::bigint is null or c.id = $2) and ($3::bigint is null or c.transaction_id = $3)
    order by c.id limit 1000`;

/** Whether transaction $2 of merchant $1 is disputed already. */
export const transactionDisputed = 'select 1 from chargeback where merchant_id = $1 and transaction_id = $2';

/** Moves chargeback $1 to status $2 at $3 (the merchant's clock). */
export const setChargebackStatus = 'update chargeback set status = $2, updated_at = $3 where id = $1';

/** Files evidence: $1 merchant, $2 chargeback, $3 media type, $4 size, $5 SHA-256 hex, $6 content, $7 when. */
export const insertEvidence = `insert into chargeback_evidence
       (merchant_id, chargeback_id, media_type, size_bytes, sha256, content, created_at)
     values ($1, $2, $3, $4, $5, $6, $7)`;

/** The evidence of merchant $1's chargebacks $2 (an array), without the content. */
export const evidenceOf = `select id, chargeback_id, media_type, size_bytes, sha256, created_at
     from chargeback_evidence where merchant_id = $1 and chargeback_id = any($2::bigint[]) order by id`;

/** Whether transaction $1 is a captured sale of the stored card whose fingerprint is one of $2. */
export const captureOfCard = `select t.captured_minor, t.currency from card_transaction t
     join stored_card c on c.id = t.card_id where t.id = $1 and t.status = 'CAPTURED' and c.fingerprint = any($2::varchar[])`;
