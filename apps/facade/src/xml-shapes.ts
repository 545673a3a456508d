import type { XmlShape } from '@paywire/xml';

/** The XML document of each public resource (root element, arrays, value casing). */
export const xmlShapes = {
  cardTransaction: { root: 'card-transaction', upperCaseValues: ['processingStatus'] },
  refund: { root: 'refund' },
  vaultedShopper: { root: 'vaulted-shopper', repeated: ['creditCardInfo'] },
  paymentFieldsToken: { root: 'payment-fields-token' },
  sandboxClock: { root: 'sandbox-clock' },
  notificationConfig: { root: 'notification-config', wrapped: { ipnDestinations: 'ipn-destination' } },
  messages: { root: 'messages', repeated: ['message'] },
} as const satisfies Record<string, XmlShape>;
