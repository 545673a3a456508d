import { z } from 'zod';
import { booleanInput } from './primitives.ts';

/** Instant payment notification events, in the order of interface.md; each has a send flag `send<Event>`. */
export const ipnEvents = [
  'AuthOnly',
  'Cancellation',
  'CancelOnRenewal',
  'Charge',
  'Chargeback',
  'ChargebackStatusChanged',
  'ContractChange',
  'CancellationRefund',
  'FailedPayoutTransfer',
  'SubscriptionReminder',
  'Decline',
  'Refund',
  'Recurring',
  'CcFailure',
  'SubCcFailure',
  'UnderVendorReview',
  'PaymentUpdate',
  'PaymentUpdateFailure',
  'AccountUpdater',
  'Payout',
  'VendorStatusChanged',
  'FraudDecline',
  'ChargePending',
  'ShopperDeleted',
  'VendorReportAvailable',
  'MerchantOnboarded',
  'OfflineOrder',
  'CcStatusChanged',
] as const;
export type IpnEvent = (typeof ipnEvents)[number];
export type SendFlag = `send${IpnEvent}`;

export const sendFlagOf = (event: IpnEvent): SendFlag => `send${event}`;
export const sendFlags: readonly SendFlag[] = ipnEvents.map(sendFlagOf);

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
