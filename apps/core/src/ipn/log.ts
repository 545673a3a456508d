import {
  type DeliveryLogQuery,
  DomainError,
  type IpnEvent,
  type NotificationDelivery,
  type NotificationDeliveryPage,
} from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { executePrepared } from '../db/wire.ts';
import { deliveryPage, redeliverNow } from './queries.ts';

interface DeliveryRow {
  id: string;
  event: IpnEvent;
  reference_number: string | null;
  destination: string;
  state: NotificationDelivery['state'];
  attempts: number;
  max_attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_try_at: Date | string | null;
  created_at: Date | string;
  delivered_at: Date | string | null;
  request_id: string | null;
}

/** Timestamps arrive as the driver types them (MikroORM's pool may leave them as text). */
const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();

const entry = (row: DeliveryRow): NotificationDelivery => ({
  deliveryId: Number(row.id),
  event: row.event,
  referenceNumber: row.reference_number,
  destination: row.destination,
  state: row.state,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  lastStatus: row.last_status,
  lastError: row.last_error,
  nextTryAt: row.state === 'pending' ? iso(row.next_try_at) : null,
  createdAt: iso(row.created_at) ?? '',
  deliveredAt: iso(row.delivered_at),
  requestId: row.request_id,
});

/** The merchant's deliveries, newest first, filtered, a page at a time (one more row tells the last page). */
export async function listDeliveries(
  ctx: MerchantContext,
  query: DeliveryLogQuery,
): Promise<NotificationDeliveryPage> {
  const rows = await executePrepared<DeliveryRow>(ctx.em, deliveryPage, [
    ctx.merchantId,
    query.after ?? null,
    query.state ?? null,
    query.event ?? null,
    query.destination ?? null,
    query.pagesize + 1,
  ]);
  return {
    lastPage: rows.length <= query.pagesize,
    notificationDeliveries: rows.slice(0, query.pagesize).map(entry),
  };
}

/**
 * One more attempt at a delivery, due now, whatever its state: its attempts so far stay counted and it
 * gets one more. A delivery a worker holds right now is sent again after that attempt ends.
 */
export async function redeliver(ctx: MerchantContext, deliveryId: number): Promise<NotificationDelivery> {
  const [row] = await executePrepared<DeliveryRow>(ctx.em, redeliverNow, [deliveryId, ctx.merchantId]);
  if (!row) {
    throw new DomainError(
      'NOTIFICATION_DELIVERY_NOT_FOUND',
      `Notification delivery ${deliveryId} was not found`,
      { name: 'deliveryId', messageValue: String(deliveryId) },
    );
  }
  return entry(row);
}
