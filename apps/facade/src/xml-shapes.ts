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

const planOrder = [
  'planId',
  'name',
  'recurringChargeAmount',
  'currency',
  'chargeFrequency',
  'trialPeriodDays',
  'initialChargeAmount',
  'chargeOnPlanSwitch',
  'maxNumberOfCharges',
  'gracePeriodDays',
  'status',
] as const;

const chargeOrder = [
  'chargeId',
  'subscriptionId',
  'planId',
  'vaultedShopperId',
  'transactionId',
  'transactionDate',
  'amount',
  'currency',
  'softDescriptor',
  'payerInfo',
  'paymentSource',
  'chargeInfo',
  'refunds',
  'processingInfo',
] as const;

const subscriptionOrder = [
  'subscriptionId',
  'planId',
  'vaultedShopperId',
  'status',
  'quantity',
  'softDescriptor',
  'vendorInfo',
  'chargeFrequency',
  'trialPeriodDays',
  'subscriptionCurrency',
  'recurringChargeAmount',
  'overrideRecurringChargeAmount',
  'currency',
  'initialChargeAmount',
  'autoRenew',
  'nextChargeDate',
  'overrideInitialChargeAmount',
  'overrideTrialPeriodDays',
  'payerInfo',
  'paymentSource',
  'charge',
  'fraudResultInfo',
  'transactionFraudInfo',
] as const;

/**
 * Each schema type's element order: its `xs:sequence` in the original's XSDs (the 2.3.12 roots over the
 * newest published types; docs/xml-schemas.md), keyed by the JSON key that holds an object of the type.
 * Keys a sequence lacks are written after it: they are what the reference's JSON added after the schema.
 */
const types = {
  cardHolderInfo: [
    'merchantShopperId',
    'firstName',
    'lastName',
    'email',
    'country',
    'state',
    'address',
    'address2',
    'city',
    'zip',
    'phone',
    'personalIdentificationNumber',
  ],
  creditCard: [
    'cardNumber',
    'encryptedCardNumber',
    'cardLastFourDigits',
    'cardType',
    'cardSubType',
    'cardCategory',
    'binCategory',
    'binNumber',
    'cardRegulated',
    'issuingBank',
    'expirationMonth',
    'expirationYear',
    'securityCode',
    'securityCodePfToken',
    'encryptedSecurityCode',
    'startMonth',
    'startYear',
    'issueNumber',
    'cardFingerprint',
    'issuingCountryCode',
  ],
  processingInfo: [
    'processingStatus',
    'processingErrors',
    'cvvResponseCode',
    'authorizationCode',
    'avsResponseCodeZip',
    'avsResponseCodeAddress',
    'avsResponseCodeName',
    'networkTransactionId',
  ],
  billingContactInfo: [
    'firstName',
    'lastName',
    'address1',
    'address2',
    'city',
    'state',
    'zip',
    'country',
    'personalIdentificationNumber',
    'companyName',
  ],
  shippingContactInfo: [
    'firstName',
    'lastName',
    'address1',
    'address2',
    'city',
    'state',
    'zip',
    'country',
    'phone',
  ],
  wallet: [
    'walletType',
    'walletId',
    'billingContactInfo',
    'shippingContactInfo',
    'encodedPaymentToken',
    'tokenizedCard',
  ],
  tokenizedCard: [
    'dpan',
    'dpanExpirationMonth',
    'dpanExpirationYear',
    'dpanLastFourDigits',
    'cardLastFourDigits',
    'cardType',
    'cardSubType',
    'cardCategory',
  ],
  transactionFraudInfo: [
    'fraudSessionId',
    'shopperIpAddress',
    'company',
    'shippingContactInfo',
    'enterpriseSiteId',
    'enterpriseUdfs',
  ],
  udf: ['udfName', 'udfValue'],
  [metaData]: ['metaKey', 'metaValue', 'metaDescription', 'isVisible'],
  level3Data: [
    'customerReferenceNumber',
    'salesTaxAmount',
    'freightAmount',
    'dutyAmount',
    'destinationZipCode',
    'destinationCountryCode',
    'shipFromZipCode',
    'discountAmount',
    'taxAmount',
    'taxRate',
    'taxId',
    'level3DataItems',
  ],
  level3DataItems: [
    'lineItemTotal',
    'commodityCode',
    'description',
    'discountAmount',
    'discountIndicator',
    'grossNetIndicator',
    'productCode',
    'itemQuantity',
    'taxAmount',
    'taxRate',
    'taxType',
    'unitCost',
    'unitOfMeasure',
  ],
  paymentSources: ['creditCardInfo', 'ecpInfo', 'sepaDirectDebitInfo'],
  creditCardInfo: ['billingContactInfo', 'pfToken', 'creditCard', 'processingInfo'],
  sepaDirectDebitInfo: ['billingContactInfo', 'sepaDirectDebit', 'status'],
  sepaDirectDebit: [
    'iban',
    'bic',
    'ibanFirstFour',
    'ibanLastFour',
    'mandateId',
    'mandateDate',
    'preNotificationText',
    'preNotificationTranslationRef',
  ],
  lastPaymentInfo: ['paymentMethod', 'creditCard', 'ecp', 'wallet'],
  payerInfo: [
    'merchantShopperId',
    'firstName',
    'lastName',
    'email',
    'country',
    'state',
    'address',
    'address2',
    'city',
    'zip',
    'phone',
    'companyName',
    'personalIdentificationNumber',
  ],
  paymentSource: [
    'wallet',
    'creditCardInfo',
    'ecpInfo',
    'paypalTransaction',
    'pfToken',
    'sepaDirectDebitInfo',
  ],
  chargeInfo: [
    'chargeDescription',
    'onDemandSoftDescriptor',
    'fromDate',
    'toDate',
    'chargeType',
    'sellerOrderId',
  ],
  // a subscription's charge, and a page's items
  charge: chargeOrder,
  charges: chargeOrder,
  subscriptions: subscriptionOrder,
  plans: planOrder,
  message: ['errorName', 'code', 'description', 'invalidProperty', 'fraudEvents'],
  invalidProperty: ['name', 'messageValue'],
  // the original's fraud-events of a 15011 FRAUD_DETECTED error, fraud-event repeated in it
  fraudEvents: ['fraudReferenceId', 'fraudTransactionId', 'fraudEvent'],
  fraudEvent: ['fraudEventCode', 'fraudEventDecision', 'fraudEventExpression'],
} as const satisfies Record<string, readonly string[]>;

/** A page of a list (plans, subscriptions, charges): its counts, then the items. */
function pageOf(items: string): readonly string[] {
  return ['totalResults', 'lastPage', items];
}

/**
 * Subscriptions and their charges: the schema's charge-info requires charge-description and spells
 * charge-type in lower case (initial, recurring).
 */
const recurring = {
  repeated: [metaData],
  lowerCaseValues: ['chargeType'],
  required: { chargeInfo: ['chargeDescription'] },
} as const;

/** The shared types' orders, and the root's own. */
function sequenced(root: readonly string[]): Readonly<Record<string, readonly string[]>> {
  return { ...types, '': root };
}

/** The XML document of each public resource (root element, arrays, value casing, element order). */
export const xmlShapes = {
  cardTransaction: {
    root: 'card-transaction',
    upperCaseValues: ['processingStatus'],
    repeated: [metaData, 'level3DataItems', 'udf'],
    elementNames: { level3Data: 'level-3-data', level3DataItems: 'level-3-data-item' },
    sequences: sequenced([
      'cardTransactionType',
      'vendorInfo',
      'merchantTransactionId',
      'transactionId',
      'recurringTransaction',
      'softDescriptor',
      'amount',
      'currency',
      'avsResponseCode',
      'cardHolderInfo',
      'vaultedShopperId',
      'transactionFraudInfo',
      'creditCard',
      'pfToken',
      'walletId',
      'wallet',
      'transactionMetaData',
      'processingInfo',
      'fraudResultInfo',
      'refunds',
    ]),
  },
  refund: {
    root: 'refund',
    repeated: [metaData],
    // The schema's refund is amount, currency and date; refundTransactionId leads as the reference's answer
    // does, and the JSON's transactionId (ours: the refunded transaction) has no element.
    sequences: sequenced([
      'refundTransactionId',
      'amount',
      'currency',
      'date',
      'taxAmount',
      'reason',
      'cancelSubscriptions',
      'transactionMetaData',
      'refundStatus',
    ]),
    omitted: ['transactionId'],
  },
  vaultedShopper: {
    root: 'vaulted-shopper',
    repeated: ['creditCardInfo', 'sepaDirectDebitInfo'],
    sequences: sequenced([
      'vaultedShopperId',
      // the shopper's contact: the schema's vaulted-shopper repeats card-holder-info's elements, in its order
      ...types.cardHolderInfo,
      'companyName',
      'softDescriptor',
      'shopperCurrency',
      'walletId',
      'paymentSources',
      'shippingContactInfo',
      'transactionFraudInfo',
      'fraudResultInfo',
      'lastPaymentInfo',
    ]),
  },
  paymentFieldsToken: { root: 'payment-fields-token' },
  sandboxClock: { root: 'sandbox-clock' },
  /** The original's answer to a shopper's deletion: <message><description>. */
  shopperDeletion: { root: 'message' },
  notificationConfig: { root: 'notification-config', wrapped: { ipnDestinations: 'ipn-destination' } },
  fraudSettings: {
    root: 'fraud-settings',
    wrapped: { amountLimits: 'amount-limit' },
    sequences: {
      '': ['cardHourlyLimit', 'ipAddressHourlyLimit', 'amountLimits', 'countryMismatchDecline'],
      amountLimits: ['currency', 'minAmount', 'maxAmount'],
    },
  },
  deliveryLog: { root: 'delivery-log', wrapped: { notificationDeliveries: 'notification-delivery' } },
  notificationDelivery: { root: 'notification-delivery' },
  auditLog: { root: 'audit-log', wrapped: { auditEvents: 'audit-event' } },
  messages: {
    root: 'messages',
    repeated: ['message', 'fraudEvent'],
    sequences: sequenced(['message']),
    // The schema requires the value; an error that never echoes it (card data, IBANs) writes it empty.
    required: { invalidProperty: ['messageValue'] },
  },
  altTransaction: {
    root: 'alt-transaction',
    repeated: [metaData],
    sequences: sequenced([
      'merchantTransactionId',
      'transactionId',
      'vendorInfo',
      'softDescriptor',
      'amount',
      'currency',
      'payerInfo',
      'vaultedShopperId',
      'transactionDescription',
      'paypalTransaction',
      'ecpTransaction',
      'sepaDirectDebitTransaction',
      'transactionMetaData',
      'transactionFraudInfo',
      'authorizedByShopper',
      'processingInfo',
      'fraudResultInfo',
      'refunds',
    ]),
  },
  preNotification: { root: 'sepa-pre-notification', ...translations },
  mandateText: { root: 'sepa-mandate', ...translations },
  product: { root: 'product', wrapped: { skus: 'sku' } },
  batchOrder: { root: 'batch-order', ...orderDocument },
  order: { root: 'order', ...orderDocument },
  shopper: { root: 'shopper', ...orderDocument },
  plan: { root: 'plan', sequences: sequenced(planOrder) },
  plans: {
    root: 'plans',
    repeated: ['plans'],
    elementNames: { plans: 'plan' },
    sequences: sequenced(pageOf('plans')),
  },
  subscription: { root: 'recurring-subscription', ...recurring, sequences: sequenced(subscriptionOrder) },
  subscriptions: {
    root: 'recurring-subscriptions',
    ...recurring,
    repeated: [metaData, 'subscriptions'],
    elementNames: { subscriptions: 'recurring-subscription' },
    sequences: sequenced(pageOf('subscriptions')),
  },
  charge: { root: 'charge', ...recurring, sequences: sequenced(chargeOrder) },
  charges: {
    root: 'charges',
    ...recurring,
    repeated: [metaData, 'charges'],
    elementNames: { charges: 'charge' },
    sequences: sequenced(pageOf('charges')),
  },
  // the original's price (price.xsd): value, then currency
  switchChargeAmount: { root: 'price', sequences: { '': ['value', 'currency'] } },
  chargeback: { root: 'chargeback', wrapped: { evidence: 'evidence-file' } },
  chargebacks: {
    root: 'chargebacks',
    repeated: ['chargebacks'],
    elementNames: { chargebacks: 'chargeback' },
    wrapped: { evidence: 'evidence-file' },
  },
  subscriptionCharge: { root: 'subscription-charge' },
} as const satisfies Record<string, XmlShape>;
