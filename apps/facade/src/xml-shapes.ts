import type { XmlShape } from '@paywire/xml';

/** The XML document of each public resource (root element, arrays, value casing). */
export const xmlShapes = {
  cardTransaction: { root: 'card-transaction', upperCaseValues: ['processingStatus'] },
  refund: { root: 'refund' },
  vaultedShopper: { root: 'vaulted-shopper', repeated: ['creditCardInfo', 'sepaDirectDebitInfo'] },
  paymentFieldsToken: { root: 'payment-fields-token' },
  sandboxClock: { root: 'sandbox-clock' },
  notificationConfig: { root: 'notification-config', wrapped: { ipnDestinations: 'ipn-destination' } },
  messages: { root: 'messages', repeated: ['message'] },
  product: { root: 'product', wrapped: { skus: 'sku' } },
  altTransaction: { root: 'alt-transaction' },
  preNotification: { root: 'sepa-pre-notification', wrapped: { translations: 'translation' } },
} as const satisfies Record<string, XmlShape>;
