import type { DeliverySettings } from './delivery.ts';

/** The pg-boss queue of IPN deliveries: one job per delivery row. */
export const deliveryQueue = 'ipn-delivery';

/**
 * How long a delivery job may stay active: its attempt's timeout and a little more. A job whose core was
 * killed mid-attempt is then retried within seconds of that, not after pg-boss's default 15 minutes.
 */
export const deliveryExpirySeconds = (settings: Pick<DeliverySettings, 'timeoutMs'>) =>
  Math.ceil(settings.timeoutMs / 1000) + 5;
