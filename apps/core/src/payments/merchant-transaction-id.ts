import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '../db/wire.ts';
import { merchantTransactionIdInUse } from '../errors.ts';
import { merchantTransactionIdTaken } from './queries.ts';

/**
 * Prepare's check of a merchantTransactionId: one another payment has is refused before any processor is
 * asked, so a merchant resending an order's id gets its 400 without an authorization at the processor that
 * would then have to be reversed. Two payments racing with one new id both pass; the record phase's claim
 * (the unique index) refuses the second, and its approval is undone (compensate).
 */
export async function refuseTakenMerchantTransactionId(
  em: EntityManager,
  merchantId: number,
  merchantTransactionId: string | undefined,
): Promise<void> {
  if (merchantTransactionId === undefined) return;
  const taken = await executePrepared(em, merchantTransactionIdTaken, [merchantId, merchantTransactionId]);
  if (taken.length > 0) throw merchantTransactionIdInUse(merchantTransactionId);
}
