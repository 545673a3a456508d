import type { EntityManager } from '@mikro-orm/postgresql';
import type { MerchantContext } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { captureOfCard } from './queries.ts';
import { openDispute } from './service.ts';

/**
 * The sandbox's dispute test card (ours, docs/chargebacks.md): a VISA the sandbox approves, whose sales are
 * disputed at once for their whole amount, so a merchant sees the Chargeback IPN of a real-looking dispute.
 */
export const disputeTestCard = '4000000000000259';

export const disputeTestReasonCode = '10.4';

/**
 * Opens the rehearsal chargeback of a sandbox sale paid with the dispute test card, in the sale's transaction.
 * Every sandbox sale passes here: only one whose card ends as the test card's is looked up.
 */
export async function disputeTestCardSale(
  ctx: MerchantContext,
  em: EntityManager,
  { transactionId, cardLastFour }: { transactionId: number; cardLastFour: string | undefined },
): Promise<void> {
  if (ctx.mode !== 'sandbox' || cardLastFour !== disputeTestCard.slice(-4)) return;
  const [sale] = await executeParameterized<{ captured_minor: string; currency: string }>(em, captureOfCard, [
    transactionId,
    ctx.vault.fingerprints(disputeTestCard),
  ]);
  if (!sale) return;
  await openDispute(ctx, em, {
    transactionId,
    accountId: null,
    reference: `SANDBOX-CARD-${transactionId}`,
    amountMinor: Number(sale.captured_minor),
    currency: sale.currency,
    reasonCode: disputeTestReasonCode,
    reason: 'Other Fraud - Card Absent Environment (sandbox dispute test card)',
  });
}
