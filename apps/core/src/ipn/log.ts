import { DomainError } from '@paywire/contracts';
import { fromKysely } from 'pg-boss';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { IpnDelivery } from './entities.ts';
import { deliveryExpirySeconds, deliveryQueue } from './queue.ts';

export interface DeliveryLogEntry {
  deliveryId: number;
  event: string;
  referenceNumber: string | null;
  destination: string;
  state: IpnDelivery['state'];
  attempts: number;
  maxAttempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextTryAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

const entry = (delivery: IpnDelivery): DeliveryLogEntry => ({
  deliveryId: delivery.id,
  event: delivery.event,
  referenceNumber: delivery.referenceNumber ?? null,
  destination: delivery.destination,
  state: delivery.state,
  attempts: delivery.attempts,
  maxAttempts: delivery.maxAttempts,
  lastStatus: delivery.lastStatus ?? null,
  lastError: delivery.lastError ?? null,
  nextTryAt: delivery.nextTryAt?.toISOString() ?? null,
  createdAt: delivery.createdAt.toISOString(),
  deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
});

/** The merchant's deliveries, newest first, a page at a time. */
export async function listDeliveries(
  ctx: MerchantContext,
  page: { limit: number; beforeId?: number | undefined },
) {
  const deliveries = await ctx.em.find(
    IpnDelivery,
    { merchantId: ctx.merchantId, ...(page.beforeId ? { id: { $lt: page.beforeId } } : {}) },
    { orderBy: { id: 'desc' }, limit: page.limit },
  );
  return deliveries.map(entry);
}

/** One more attempt at a delivery, now, whatever its state. */
export async function redeliver(ctx: MerchantContext, deliveryId: number): Promise<DeliveryLogEntry> {
  return inTransaction(ctx.em, async (em) => {
    const delivery = await em.findOne(IpnDelivery, { id: deliveryId, merchantId: ctx.merchantId });
    if (!delivery) throw new DomainError('RESOURCE_NOT_FOUND', `IPN delivery ${deliveryId} was not found`);
    Object.assign(delivery, { state: 'pending', maxAttempts: delivery.attempts + 1, nextTryAt: new Date() });
    await em.flush();
    const transaction = em.getTransactionContext();
    if (!transaction) throw new Error('redelivery runs in a transaction');
    await ctx.jobs.send(
      deliveryQueue,
      { deliveryId },
      { db: fromKysely(transaction), retryLimit: 0, expireInSeconds: deliveryExpirySeconds(ctx.ipn) },
    );
    return entry(delivery);
  });
}
