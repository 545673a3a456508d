import type { EntityManager } from '@mikro-orm/postgresql';
import { type ShopperFieldName, shopperFieldNames } from '@paywire/contracts';
import { executePrepared } from '../db/wire.ts';
import { duplicateMerchantTransactionId } from '../errors.ts';
import { Shopper } from '../shoppers/entities.ts';
import type { VaultableCard } from '../shoppers/service.ts';
import type { CardTransaction } from './entities.ts';

/** The shopper a sale belongs to: a known one, or a new one with these columns. */
export type SaleShopper = { id: number } | { columns: Partial<Record<ShopperFieldName, string>> };
/** The card a sale charges: a vaulted one, or one to vault (a known number updates its vaulted card). */
export type SaleCard = { id: number } | { vault: VaultableCard } | null;

export type SaleColumns = Pick<
  CardTransaction,
  | 'merchantTransactionId'
  | 'wallet'
  | 'type'
  | 'status'
  | 'currency'
  | 'amountMinor'
  | 'capturedMinor'
  | 'softDescriptor'
  | 'cardHolder'
  | 'processing'
  | 'threeDSecure'
  | 'transactionMetaData'
  | 'level3Data'
  | 'transactionFraudInfo'
  | 'authorizedAt'
>;

/**
 * Writes a sale, with its new shopper and newly vaulted card, in one statement: one round trip instead of
 * one per row, and no unit of work to compute. The statement is atomic on its own.
 */
export async function insertSale(
  em: EntityManager,
  merchantId: number,
  shopper: SaleShopper,
  card: SaleCard,
  sale: SaleColumns,
): Promise<{ transactionId: number; shopperId: number }> {
  const values: unknown[] = [];
  const bind = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const json = (value: unknown) => (value == null ? null : JSON.stringify(value));

  let shopperSql: string;
  if ('id' in shopper) shopperSql = `select ${bind(shopper.id)}::integer as id`;
  else {
    const properties = em.getMetadata().get(Shopper).properties as Record<string, { fieldNames: string[] }>;
    const columnOf = (property: string) => properties[property]?.fieldNames[0] ?? property;
    // Every column, null where unknown: one statement text, prepared once, whatever the request sent.
    const names = ['merchant_id', ...shopperFieldNames.map(columnOf), 'created_at', 'updated_at'];
    const row = [
      `${bind(merchantId)}::integer`,
      ...shopperFieldNames.map((name) => `${bind(shopper.columns[name] ?? null)}::varchar`),
    ];
    shopperSql = `insert into shopper (${names.join(', ')}) values (${row.join(', ')}, now(), now()) returning id`;
  }
  let cardSql: string;
  if (card === null)
    cardSql = 'select null::bigint as id'; // a wallet payment: its card is on the sale
  else if ('id' in card) cardSql = `select ${bind(card.id)}::bigint as id`;
  else {
    const c = card.vault;
    const [merchant, ...columns] = [
      merchantId,
      c.fingerprint,
      c.sealedNumber,
      c.brand,
      c.lastFour,
      c.expirationMonth,
      c.expirationYear,
      c.cardSubType,
      c.cardCategory,
      json(c.billingContact),
    ].map(bind);
    columns[columns.length - 1] += '::jsonb';
    cardSql = `insert into stored_card (merchant_id, shopper_id, fingerprint, sealed_number, brand, last_four,
        expiration_month, expiration_year, card_sub_type, card_category, billing_contact, created_at)
      select ${merchant}::integer, s.id, ${columns.join(', ')}, now() from s
      on conflict (shopper_id, fingerprint) do update set expiration_month = excluded.expiration_month,
        expiration_year = excluded.expiration_year,
        billing_contact = coalesce(excluded.billing_contact, stored_card.billing_contact)
      returning id`;
  }
  // Typed: in insert ... select, PostgreSQL does not infer parameter types from the target columns.
  const saleValues = [
    `${bind(merchantId)}::integer`,
    `${bind(sale.merchantTransactionId)}::varchar`,
    `${bind(json(sale.wallet))}::jsonb`,
    `${bind(sale.type)}::varchar`,
    `${bind(sale.status)}::varchar`,
    `${bind(sale.currency)}::varchar`,
    `${bind(sale.amountMinor)}::bigint`,
    `${bind(sale.capturedMinor)}::bigint`,
    `${bind(sale.softDescriptor)}::varchar`,
    `${bind(json(sale.cardHolder))}::jsonb`,
    `${bind(json(sale.processing))}::jsonb`,
    `${bind(json(sale.threeDSecure))}::jsonb`,
    `${bind(json(sale.transactionMetaData))}::jsonb`,
    `${bind(json(sale.level3Data))}::jsonb`,
    `${bind(json(sale.transactionFraudInfo))}::jsonb`,
    `${bind(sale.authorizedAt)}::timestamptz`,
  ];
  const sql = `with s as (${shopperSql}), c as (${cardSql}),
    t as (insert into card_transaction (merchant_id, merchant_transaction_id, shopper_id, card_id, wallet, type, status,
        currency, amount_minor, captured_minor, soft_descriptor, card_holder, processing, three_d_secure,
        transaction_meta_data, level3_data, transaction_fraud_info, authorized_at, created_at, updated_at)
      select ${saleValues[0]}, ${saleValues[1]}, s.id, c.id, ${saleValues.slice(2).join(', ')}, now(), now()
      from s, c returning id),
    -- unique per merchant across card transactions and SEPA debits (0008)
    r as (insert into merchant_transaction_ids (merchant_id, merchant_transaction_id)
      select ${saleValues[0]}, ${saleValues[1]} where ${saleValues[1]} is not null)
    select t.id as transaction_id, s.id as shopper_id from t, s`;
  try {
    const [row] = await executePrepared<{ transaction_id: string; shopper_id: number }>(em, sql, values);
    if (!row) throw new Error('the sale statement returned no row');
    return {
      transactionId: Number(row.transaction_id),
      shopperId: row.shopper_id,
    };
  } catch (error) {
    throw duplicateMerchantTransactionId(error, sale.merchantTransactionId);
  }
}
