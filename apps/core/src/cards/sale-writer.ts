import type { EntityManager } from '@mikro-orm/postgresql';
import { type ShopperFieldName, shopperFieldNames } from '@paywire/contracts';
import { sendWithNext } from '../db/wire.ts';
import { duplicateMerchantTransactionId } from '../errors.ts';
import { AttemptTakenOver, type SaleReservation } from '../payments/attempts.ts';
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
 * Writes a sale with its new shopper and newly vaulted card, and settles the attempt it was authorized under,
 * in one statement (cards/queries.ts) sent with the transaction's next one: its ids were reserved with the
 * attempt, so nothing waits for its answer. The transaction fails with AttemptTakenOver when the attempt was
 * no longer pending (its sale must not commit), or with the refusal of a merchantTransactionId taken
 * meanwhile. Answers the sale's id and its shopper's.
 */
export async function insertSale(
  em: EntityManager,
  merchantId: number,
  reserved: SaleReservation,
  { shopper, card, sale }: { shopper: SaleShopper; card: SaleCard; sale: SaleColumns },
): Promise<{ transactionId: number; shopperId: number }> {
  const json = (value: unknown) => (value == null ? null : JSON.stringify(value));
  const shopperId = 'id' in shopper ? shopper.id : reserved.shopperId;
  if (shopperId === null) throw new Error('a sale for a new shopper without a reserved shopper id');
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
    reserved.reference,
    reserved.transactionId,
    shopperId,
  ];
  let shape: SaleShape['shopper'] = 'known';
  if (!('id' in shopper)) {
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
  await sendWithNext(em, saleStatement({ shopper: shape, card: cardShape }), values, (error) =>
    (error as { code?: unknown }).code === attemptTakenOverState
      ? new AttemptTakenOver()
      : duplicateMerchantTransactionId(error, sale.merchantTransactionId),
  );
  return { transactionId: reserved.transactionId, shopperId };
}

/** The SQLSTATE payment_attempt_settled raises (migration 0043). */
const attemptTakenOverState = 'PW001';
