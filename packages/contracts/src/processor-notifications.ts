import { z } from 'zod';

/**
 * Adyen's standard notification (Webhooks v1, NotificationRequest): what the facade accepts at
 * /processors/adyen/:accountId/notifications and hands to core unchanged. Only the fields Paywire reads or
 * the signature covers are checked; the rest of each item is kept as sent (loose objects), since the raw
 * item is what core stores. `eventCode` is any text, not the document's enum: Adyen adds event codes, and a
 * notification refused for one would be retried by Adyen for days.
 */
const text = (max: number) => z.string().max(max);

export const adyenNotificationItem = z.looseObject({
  pspReference: text(64).min(1),
  originalReference: text(64).optional(),
  merchantAccountCode: text(100),
  merchantReference: text(256),
  eventCode: text(64).min(1),
  eventDate: text(64).optional(),
  amount: z.looseObject({ value: z.number().int().min(0), currency: z.string().length(3) }),
  success: z.enum(['true', 'false']),
  reason: text(4000).optional(),
  additionalData: z.record(z.string(), z.string()).optional(),
});
export type AdyenNotificationItem = z.output<typeof adyenNotificationItem>;

export const adyenNotificationRequest = z.looseObject({
  live: z.enum(['true', 'false']).optional(),
  notificationItems: z
    .array(z.looseObject({ NotificationRequestItem: adyenNotificationItem }))
    .min(1)
    .max(100),
});
export type AdyenNotificationRequest = z.output<typeof adyenNotificationRequest>;

/** What the facade passes to core: the account the URL names, Adyen's Authorization header, the body. */
export const adyenNotificationInput = z.object({
  accountId: z.number().int().positive().max(2_147_483_647),
  authorization: text(2048),
  notification: adyenNotificationRequest,
});
export type AdyenNotificationInput = z.input<typeof adyenNotificationInput>;

/** The path parameter as the facade reads it. */
export const processorAccountIdParam = z.coerce
  .number({ error: 'must be a positive integer' })
  .int('must be a positive integer')
  .positive('must be a positive integer')
  .max(2_147_483_647, 'must be a positive integer');
