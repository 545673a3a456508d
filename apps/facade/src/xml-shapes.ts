import type { XmlShape } from '@paywire/xml';

/**
 * Batch orders, orders and their shoppers: wrapper/item pairs at several depths, cart-item repeated, and
 * the cart's money with two decimals (orders are paid by SEPA direct debit, in EUR only).
 */
const orderDocument = {
  repeated: ['cartItem'],
  wrapped: {
    invoiceContactsInfo: 'invoice-contact-info',
    creditCardsInfo: 'credit-card-info',
    ecpsInfo: 'ecp-info',
    sepaDirectDebitsInfo: 'sepa-direct-debit-info',
    invoices: 'invoice',
    financialTransactions: 'financial-transaction',
    skus: 'sku',
    licenseKeys: 'license-key',
  },
  decimals: { itemSubTotal: 2, tax: 2, totalCartCost: 2 },
} as const satisfies Omit<XmlShape, 'root'>;

/** The original's metadata entries repeat <meta-data> inside <transaction-meta-data>. */
const metaData = 'metaData';

/** The SEPA texts: the original's translations object, each entry a <translation>. */
const translations = { wrapped: { translations: 'translation' } } as const;

/** The XML document of each public resource (root element, arrays, value casing). */
export const xmlShapes = {
  cardTransaction: {
    root: 'card-transaction',
    upperCaseValues: ['processingStatus'],
    repeated: [metaData, 'level3DataItems', 'udf'],
    elementNames: { level3Data: 'level-3-data', level3DataItems: 'level-3-data-item' },
  },
  refund: { root: 'refund', repeated: [metaData] },
  vaultedShopper: { root: 'vaulted-shopper', repeated: ['creditCardInfo', 'sepaDirectDebitInfo'] },
  paymentFieldsToken: { root: 'payment-fields-token' },
  sandboxClock: { root: 'sandbox-clock' },
  notificationConfig: { root: 'notification-config', wrapped: { ipnDestinations: 'ipn-destination' } },
  deliveryLog: { root: 'delivery-log', wrapped: { notificationDeliveries: 'notification-delivery' } },
  notificationDelivery: { root: 'notification-delivery' },
  auditLog: { root: 'audit-log', wrapped: { auditEvents: 'audit-event' } },
  messages: { root: 'messages', repeated: ['message'] },
  altTransaction: { root: 'alt-transaction', repeated: [metaData] },
  preNotification: { root: 'sepa-pre-notification', ...translations },
  mandateText: { root: 'sepa-mandate', ...translations },
  product: { root: 'product', wrapped: { skus: 'sku' } },
  batchOrder: { root: 'batch-order', ...orderDocument },
  order: { root: 'order', ...orderDocument },
  shopper: { root: 'shopper', ...orderDocument },
  plan: { root: 'plan' },
  plans: { root: 'plans', repeated: ['plans'], elementNames: { plans: 'plan' } },
  subscription: { root: 'subscription', repeated: [metaData] },
  subscriptions: {
    root: 'subscriptions',
    repeated: ['subscriptions'],
    elementNames: { subscriptions: 'subscription' },
  },
  charge: { root: 'charge', repeated: [metaData] },
  charges: { root: 'charges', repeated: ['charges'], elementNames: { charges: 'charge' } },
  switchChargeAmount: { root: 'switch-charge-amount' },
  subscriptionCharge: { root: 'subscription-charge' },
} as const satisfies Record<string, XmlShape>;
