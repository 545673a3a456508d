// No imports: the merchant console's bundle imports this module alone (@paywire/contracts/ipn-events).

/** Instant payment notification events, in the interface's order (docs/conformance.md, IPN configuration); each has a send flag `send<Event>`. */
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
