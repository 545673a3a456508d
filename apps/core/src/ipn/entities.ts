import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type { DeliveryState, SendFlag } from '@paywire/contracts';

export interface StoredDestination {
  ipnUrl: string;
  /** The flags that are on; every other flag is off. */
  enabled: SendFlag[];
}

export const IpnConfig = defineEntity({
  name: 'IpnConfig',
  properties: {
    merchantId: p.integer().primary(),
    destinations: p.json<StoredDestination[]>(),
    ensureNotificationReceipt: p.boolean(),
    receiveAffiliateNotifications: p.boolean(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type IpnConfig = InferEntity<typeof IpnConfig>;

export const IpnDelivery = defineEntity({
  name: 'IpnDelivery',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    event: p.string().length(40),
    referenceNumber: p.string().length(50).nullable(),
    destination: p.text(),
    /** The form body as sent, fixed when the event committed. */
    body: p.text(),
    maxAttempts: p.integer(),
    attempts: p.integer().default(0),
    state: p.string().length(12).$type<DeliveryState>().default('pending'),
    lastStatus: p.integer().nullable(),
    lastError: p.string().length(200).nullable(),
    /** When a pending row is due; while a worker holds it ('sending'), the end of its lease. */
    nextTryAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    deliveredAt: p.datetime().nullable(),
  },
});
export type IpnDelivery = InferEntity<typeof IpnDelivery>;
