import { z } from 'zod';
import { type IpnEvent, ipnEvents, type SendFlag, sendFlags } from './ipn-events.ts';
import { booleanInput, pageSize, positiveId } from './primitives.ts';

export * from './ipn-events.ts';

/** The IPN's transactionType: the event in upper snake case (ChargePending -> CHARGE_PENDING). */
export const transactionTypeOf = (event: IpnEvent): string =>
  event.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toUpperCase();

const ipnUrlInput = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === 'http:' || url.protocol === 'https:') &&
        url.hostname !== '' &&
        !url.username &&
        !url.password
      );
    } catch {
      return false;
    }
  }, 'must be an http(s) URL without credentials');

const destinationInput = z.object({
  ipnUrl: ipnUrlInput,
  ...Object.fromEntries(sendFlags.map((flag) => [flag, booleanInput.optional()])),
}) as z.ZodType<{ ipnUrl: string } & Partial<Record<SendFlag, boolean>>, unknown>;

export const notificationConfigInput = z.object({
  ipnDestinations: z
    .array(destinationInput)
    .min(1, 'needs at least one destination')
    .max(10, 'allows at most 10 destinations'),
  ensureNotificationReceipt: booleanInput,
  receiveAffiliateNotifications: booleanInput,
});

export type NotificationConfigInput = z.input<typeof notificationConfigInput>;

export type IpnDestination = { ipnUrl: string } & Record<SendFlag, boolean>;

/** The stored configuration: every flag present, absent ones false. */
export interface NotificationConfig {
  ipnDestinations: IpnDestination[];
  ensureNotificationReceipt: boolean;
  receiveAffiliateNotifications: boolean;
}

// The delivery log (ours): GET /notification-deliveries and POST /notification-deliveries/{id}/redeliver.

/** pending: waiting for its next attempt; sending: an attempt is in flight; delivered, failed: final. */
export const deliveryStates = ['pending', 'sending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof deliveryStates)[number];

/** Filters and a page of the log, newest first; `after` is the last deliveryId of the previous page. */
export const deliveryLogQuery = z.object({
  state: z.enum(deliveryStates, `must be one of ${deliveryStates.join(', ')}`).optional(),
  event: z.enum(ipnEvents, 'must be an IPN event name, e.g. Charge').optional(),
  destination: z.string().max(2048, 'must be at most 2048 characters').optional(),
  pagesize: pageSize,
  after: positiveId.optional(),
});
export type DeliveryLogQuery = z.output<typeof deliveryLogQuery>;

export const deliveryIdInput = z.object({ deliveryId: positiveId });

/** One delivery of one event to one destination, as the log shows it. */
export interface NotificationDelivery {
  deliveryId: number;
  event: IpnEvent;
  referenceNumber: string | null;
  destination: string;
  state: DeliveryState;
  /** Attempts started, this one included while one is in flight. */
  attempts: number;
  maxAttempts: number;
  lastStatus: number | null;
  lastError: string | null;
  /** When the next attempt is due (pending only). */
  nextTryAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
  /** The X-Request-Id of the request whose change caused the event (null for a worker's, e.g. a settlement). */
  requestId: string | null;
}

export interface NotificationDeliveryPage {
  /** True when no delivery matching the filters is older than this page's last. */
  lastPage: boolean;
  notificationDeliveries: NotificationDelivery[];
}
