import type { EntityManager } from '@mikro-orm/postgresql';
import { type ShopperFieldName, shopperFieldNames } from '@paywire/contracts';
import { executePrepared } from '../db/wire.ts';
import { duplicateMerchantTransactionId } from '../errors.ts';
import { AttemptTakenOver } from '../payments/attempts.ts';
import { Shopper } from '../shoppers/entities.ts';
import { type VaultableCard, vaultCardParameters } from '../shoppers/service.ts';
import type { CardTransaction } from './entities.ts';
import { type SaleShape, saleStatement } from './queries.ts';

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
  | 'fraudResultInfo'
  | 'authorizedAt'
  | 'processorAccountId'
  | 'processorReference'
>;

/**
 * Writes a sale with its new shopper and newly vaulted card, and settles the attempt (by its reference) it
 * was authorized under, in one statement (cards/queries.ts). Throws AttemptTakenOver when the attempt was no
 * longer pending: the caller's transaction must not commit the sale.
 */
export async function insertSale(
  em: EntityManager,
  merchantId: number,
  attemptReference: string,
  { shopper, card, sale }: { shopper: SaleShopper; card: SaleCard; sale: SaleColumns },
): Promise<{ transactionId: number; shopperId: number }> {
  const json = (value: unknown) => (value == null ? null : JSON.stringify(value));
  const values: unknown[] = [
    merchantId,
    sale.merchantTransactionId,
    json(sale.wallet),
    sale.type,
    sale.status,
    sale.currency,
    sale.amountMinor,
    sale.capturedMinor,
    sale.softDescriptor,
    json(sale.cardHolder),
    json(sale.processing),
    json(sale.threeDSecure),
    json(sale.transactionMetaData),
    json(sale.level3Data),
    json(sale.transactionFraudInfo),
    sale.authorizedAt,
    sale.processorAccountId,
    sale.processorReference,
    json(sale.fraudResultInfo),
    attemptReference,
  ];
  let shape: SaleShape['shopper'];
  if ('id' in shopper) {
    shape = 'known';
    values.push(shopper.id);
  } else {
    const properties = em.getMetadata().get(Shopper).properties as Record<string, { fieldNames: string[] }>;
    // Every column, null where unknown: one statement text, prepared once, whatever the request sent.
    shape = { columns: shopperFieldNames.map((name) => properties[name]?.fieldNames[0] ?? name) };
    values.push(...shopperFieldNames.map((name) => shopper.columns[name] ?? null));
  }
  let cardShape: SaleShape['card'] = 'none'; // a wallet payment: its card is on the sale
  if (card && 'id' in card) {
    cardShape = 'known';
    values.push(card.id);
  } else if (card) {
    cardShape = 'new';
    values.push(...vaultCardParameters(merchantId, card.vault));
  }
  const [row] = await executePrepared<{ transaction_id: string; shopper_id: number; settled: number }>(
    em,
    saleStatement({ shopper: shape, card: cardShape }),
    values,
  ).catch((error: unknown) => {
    throw duplicateMerchantTransactionId(error, sale.merchantTransactionId);
  });
  if (!row) throw new Error('the sale statement returned no row');
  if (row.settled !== 1) throw new AttemptTakenOver();
  return { transactionId: Number(row.transaction_id), shopperId: row.shopper_id };
}
