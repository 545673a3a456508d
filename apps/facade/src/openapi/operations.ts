import {
  accountUpdateBatchBody,
  accountUpdateBatchIdInput,
  advanceClockInput,
  altTransactionBody,
  altTransactionIdInput,
  applePaySessionBody,
  auditEventPageBody,
  auditEventQuery,
  batchOrderBody,
  batchOrderInput,
  batchShopperBody,
  batchShopperIdInput,
  bindTokenInput,
  boundTokenBody,
  cardTransactionBody,
  chargebackBody,
  chargebackIdInput,
  chargebackListBody,
  chargebackListQuery,
  chargePageBody,
  consoleUserBody,
  createAccountUpdateBatchInput,
  createAltTransactionInput,
  createApplePaySessionInput,
  createConsoleUserInput,
  createOndemandInput,
  createOrderInput,
  createPlanInput,
  createProductInput,
  createSandboxChargebackInput,
  createShopperInput,
  createSubscriptionInput,
  createTransactionInput,
  createVendorInput,
  customParameterBody,
  customParameterIdInput,
  customParameterInput,
  deliveryIdInput,
  deliveryLogQuery,
  extendedShopperInput,
  extendedSubscriptionChargeInput,
  formOpeningInput,
  fraudSettingsBody,
  fraudSettingsInput,
  listPlansInput,
  listSubscriptionsInput,
  listVendorsInput,
  mandateTextInput,
  merchantShopperIdInput,
  moveSandboxChargebackInput,
  notificationConfigBody,
  notificationConfigInput,
  notificationDeliveryBody,
  notificationDeliveryPageBody,
  onboardWalletInput,
  ondemandChargeInput,
  orderBody,
  orderIdInput,
  planBody,
  planIdInput,
  planPageBody,
  prefillTokenInput,
  preNotificationInput,
  productBody,
  productIdInput,
  refundBody,
  refundInput,
  reportQuery,
  resolveChargeInput,
  sandboxClockBody,
  sepaTranslationsBody,
  shopperDeletionBody,
  shopperIdInput,
  subscriptionBody,
  subscriptionChargeBody,
  subscriptionIdInput,
  subscriptionPageBody,
  switchChargeAmountBody,
  switchChargeAmountInput,
  transactionIdInput,
  updatePlanInput,
  updateShopperInput,
  updateSubscriptionInput,
  updateTransactionInput,
  updateVendorInput,
  updateWalletOnboardingInput,
  vaultedShopperBody,
  vendorBody,
  vendorIdInput,
  vendorPageBody,
  walletOnboardingBody,
  walletOnboardingIdInput,
} from '@paywire/contracts';
import type { XmlShape } from '@paywire/xml';
import type { z } from 'zod';
import { xmlShapes } from '../xml-shapes.ts';

/** A JSON or XML body: its component name in the document, its contract, its XML document. */
export interface Body {
  name: string;
  schema: z.ZodType;
  shape: XmlShape;
}

/** A successful answer: a body in JSON or XML, a file of another media type, or nothing. */
export interface Answer {
  status: number;
  description: string;
  body?: Body;
  /** e.g. text/html: the answer is a page or file, not a resource in JSON or XML. */
  media?: readonly string[];
  headers?: Record<string, string>;
}

export interface Operation {
  summary: string;
  tag: string;
  description?: string;
  /** Served without credentials (before Basic auth in app.ts). */
  public?: true;
  /** Path parameters' contracts; a parameter not named here is a string. */
  params?: Record<string, z.ZodType>;
  query?: Record<string, z.ZodType>;
  /** The request body; properties named like a path parameter are taken from the path instead. */
  request?: Body;
  answers: Answer[];
  /** Error statuses beyond those every operation of its kind has (document.ts, errorStatuses). */
  errors?: number[];
}

/** `METHOD /path/:param`, the path under /services/2 as the route registers it. */
export type Route = `${'GET' | 'PUT' | 'POST' | 'DELETE'} /${string}`;

const body = (name: string, schema: z.ZodType, shape: XmlShape): Body => ({ name, schema, shape });
const ok = (description: string, answer: Body): Answer => ({ status: 200, description, body: answer });
const noContent = (description: string): Answer => ({ status: 204, description });
const file = (media: string | readonly string[], description: string, status = 200): Answer => ({
  status,
  description,
  media: typeof media === 'string' ? [media] : media,
});
const scriptsAndStyles = ['text/javascript', 'text/css'];

const cardTransaction = body('CardTransaction', cardTransactionBody, xmlShapes.cardTransaction);
const vaultedShopper = body('VaultedShopper', vaultedShopperBody, xmlShapes.vaultedShopper);
const shopperDeletion = body('ShopperDeletion', shopperDeletionBody, xmlShapes.shopperDeletion);
const altTransaction = body('AltTransaction', altTransactionBody, xmlShapes.altTransaction);
const product = body('Product', productBody, xmlShapes.product);
const sandboxClock = body('SandboxClock', sandboxClockBody, xmlShapes.sandboxClock);
const notificationConfig = body('NotificationConfig', notificationConfigBody, xmlShapes.notificationConfig);
const fraudSettings = body('FraudSettings', fraudSettingsBody, xmlShapes.fraudSettings);
const accountUpdateBatch = body('AccountUpdateBatch', accountUpdateBatchBody, xmlShapes.accountUpdateBatch);
const refund = body('Refund', refundBody, xmlShapes.refund);
const chargeback = body('Chargeback', chargebackBody, xmlShapes.chargeback);
const plan = body('Plan', planBody, xmlShapes.plan);
const subscription = body('Subscription', subscriptionBody, xmlShapes.subscription);
const subscriptionCharge = body('SubscriptionCharge', subscriptionChargeBody, xmlShapes.charge);
const subscriptionPage = body('SubscriptionPage', subscriptionPageBody, xmlShapes.subscriptions);
const vendor = body('Vendor', vendorBody, xmlShapes.vendor);
const walletOnboarding = body('WalletOnboarding', walletOnboardingBody, xmlShapes.wallet);
const { planId } = planIdInput.shape;
const { vendorId } = vendorIdInput.shape;
const { subscriptionId } = subscriptionIdInput.shape;
const paging = (() => {
  const { pagesize, after, before, gettotal, fulldescription } = listPlansInput.shape;
  return { pagesize, after, before, gettotal, fulldescription };
})();
const subscriptionFilters = (() => {
  const { status, planid, vaultedshopperid, shopperid } = listSubscriptionsInput.shape;
  return { ...paging, status, planid, vaultedshopperid, shopperid };
})();

/**
 * Every route of the facade, keyed as app.ts registers it (`METHOD /path/:param` under /services/2). The
 * document is generated from this table; test/api-description.test.ts checks it against the routers both
 * ways, so a new route is one entry here.
 */
export const operations: Record<Route, Operation> = {
  'POST /transactions': {
    tag: 'Card transactions',
    summary: 'Sale (AUTH_CAPTURE) or authorisation (AUTH_ONLY)',
    description: 'Pay with `creditCard`, `pfToken` (hosted fields), `wallet` or a `vaultedShopperId`.',
    request: body('CreateCardTransaction', createTransactionInput, xmlShapes.cardTransaction),
    answers: [ok('The transaction', cardTransaction)],
    errors: [405],
  },
  'PUT /transactions': {
    tag: 'Card transactions',
    summary: 'Capture (CAPTURE) or reverse (AUTH_REVERSAL) an authorisation',
    request: body('UpdateCardTransaction', updateTransactionInput, xmlShapes.cardTransaction),
    answers: [ok('The transaction', cardTransaction)],
    errors: [405],
  },
  'GET /transactions/:transactionId': {
    tag: 'Card transactions',
    summary: 'Retrieve a card transaction',
    description: "By `transactionId`, or by the merchant's id as `{merchantTransactionId},{merchantId}`.",
    params: { transactionId: transactionIdInput.shape.transactionId },
    answers: [ok('The transaction', cardTransaction)],
  },
  'PUT /transactions/:transactionId/refund': {
    tag: 'Card transactions',
    summary: 'Refund, all or part (query parameters)',
    params: { transactionId: refundInput.shape.transactionId },
    query: {
      amount: refundInput.shape.amount,
      taxAmount: refundInput.shape.taxAmount,
      reason: refundInput.shape.reason,
      cancelSubscriptions: refundInput.shape.cancelSubscriptions,
    },
    answers: [noContent('Refunded')],
  },
  'POST /transactions/refund/:transactionId': {
    tag: 'Card transactions',
    summary: 'Refund, all or part (body), answering the refund',
    request: body('RefundRequest', refundInput, xmlShapes.refund),
    answers: [ok('The refund', refund)],
  },
  'POST /transactions/refund/merchant/:merchantTransactionId': {
    tag: 'Card transactions',
    summary: "Refund by the merchant's transaction id, answering the refund",
    params: { merchantTransactionId: refundInput.shape.merchantTransactionId },
    request: body('RefundByMerchantTransactionIdRequest', refundInput, xmlShapes.refund),
    answers: [ok('The refund', refund)],
  },
  'DELETE /transactions/pending-refund/:transactionId': {
    tag: 'Card transactions',
    summary: "Cancel the transaction's pending refunds (those its processor has not done yet)",
    params: { transactionId: transactionIdInput.shape.transactionId },
    answers: [noContent('Cancelled')],
  },
  'POST /vaulted-shoppers': {
    tag: 'Vaulted shoppers',
    summary: 'Create a vaulted shopper, with cards',
    request: body('CreateVaultedShopper', createShopperInput, xmlShapes.vaultedShopper),
    answers: [ok('The shopper', vaultedShopper)],
  },
  'GET /vaulted-shoppers/merchant/:merchantShopperId': {
    tag: 'Vaulted shoppers',
    summary: "Retrieve a vaulted shopper by the merchant's own id",
    params: { merchantShopperId: merchantShopperIdInput.shape.merchantShopperId },
    answers: [ok('The shopper', vaultedShopper)],
  },
  'DELETE /vaulted-shoppers/merchant/:merchantShopperId': {
    tag: 'Vaulted shoppers',
    summary: "Delete a vaulted shopper by the merchant's own id: its cards and personal data are erased",
    params: { merchantShopperId: merchantShopperIdInput.shape.merchantShopperId },
    answers: [ok('The deletion', shopperDeletion)],
  },
  'GET /vaulted-shoppers/:vaultedShopperId': {
    tag: 'Vaulted shoppers',
    summary: 'Retrieve a vaulted shopper',
    params: { vaultedShopperId: shopperIdInput.shape.vaultedShopperId },
    answers: [ok('The shopper', vaultedShopper)],
  },
  'DELETE /vaulted-shoppers/:vaultedShopperId': {
    tag: 'Vaulted shoppers',
    summary: 'Delete a vaulted shopper: its cards and personal data are erased, ShopperDeleted is sent',
    description:
      'Refused (400) while a subscription may still charge the shopper or a SEPA debit of its is pending.',
    params: { vaultedShopperId: shopperIdInput.shape.vaultedShopperId },
    answers: [ok('The deletion', shopperDeletion)],
  },
  'PUT /vaulted-shoppers/:vaultedShopperId': {
    tag: 'Vaulted shoppers',
    summary: 'Update a vaulted shopper; cards sent are added, cards sent with status D are removed',
    params: { vaultedShopperId: shopperIdInput.shape.vaultedShopperId },
    request: body('UpdateVaultedShopper', updateShopperInput, xmlShapes.vaultedShopper),
    answers: [ok('The shopper', vaultedShopper)],
  },
  'POST /payment-fields-tokens': {
    tag: 'Hosted payment fields',
    summary: 'Create a hosted payment fields token',
    answers: [
      {
        status: 201,
        description: 'Created; no body',
        headers: { Location: 'The token URL; its last segment is the token' },
      },
    ],
  },
  'POST /payment-fields-tokens/prefill': {
    tag: 'Hosted payment fields',
    summary: 'Create a token carrying a card the merchant holds (no security code)',
    request: body('PrefillPaymentFieldsToken', prefillTokenInput, xmlShapes.paymentFieldsToken),
    answers: [
      {
        status: 201,
        description: 'Created; no body',
        headers: { Location: 'The token URL; its last segment is the token' },
      },
    ],
  },
  'PUT /payment-fields-tokens/:token': {
    tag: 'Hosted payment fields',
    public: true,
    summary: "Bind the shopper's card to a token (the hosted fields page; the token is the credential)",
    params: { token: bindTokenInput.shape.token },
    request: body('BindPaymentFieldsToken', bindTokenInput, xmlShapes.paymentFieldsToken),
    answers: [ok('The bound card', body('BoundToken', boundTokenBody, xmlShapes.paymentFieldsToken))],
  },
  'GET /payment-fields-tokens/:token/form': {
    tag: 'Hosted payment fields',
    public: true,
    summary: "The card form page of a token, for the merchant's iframe",
    query: {
      origin: formOpeningInput.shape.origin.describe(
        'The origin of the embedding page, e.g. https://shop.example',
      ),
    },
    answers: [
      file('text/html', 'The card form'),
      file('text/html', 'No form: the origin given is not an origin', 400),
      file('text/html', 'No form: the token is unknown, expired, used or framed by another origin', 404),
    ],
  },
  'GET /hosted-fields/:file': {
    tag: 'Hosted payment fields',
    public: true,
    summary: 'Static files of the hosted fields: paywire-fields.js (for merchant pages) and the form files',
    answers: [file(scriptsAndStyles, 'The script or style sheet')],
  },
  'GET /sandbox/clock': {
    tag: 'Sandbox',
    summary: "Read the merchant's sandbox clock",
    answers: [ok('The clock', sandboxClock)],
  },
  'PUT /sandbox/clock': {
    tag: 'Sandbox',
    summary: "Advance the merchant's sandbox clock (runs what falls due)",
    request: body('AdvanceSandboxClock', advanceClockInput, xmlShapes.sandboxClock),
    answers: [ok('The clock', sandboxClock)],
  },
  'POST /sandbox/chargebacks': {
    tag: 'Sandbox',
    summary:
      "Open a rehearsal chargeback on one of the merchant's captured card sales (ours; 404 in live mode)",
    description: 'Sends the Chargeback IPN; the sale itself never changes (docs/chargebacks.md).',
    request: body('CreateSandboxChargeback', createSandboxChargebackInput, xmlShapes.chargeback),
    answers: [ok('The chargeback', chargeback)],
  },
  'PUT /sandbox/chargebacks/:chargebackId': {
    tag: 'Sandbox',
    summary:
      'Play the issuer: ask for more (PENDING_MERCHANT_RESPONSE) or decide (COMPLETED_WON, COMPLETED_LOST)',
    description: 'Moves allowed by the lifecycle only; sends the ChargebackStatusChanged IPN.',
    params: { chargebackId: chargebackIdInput.shape.chargebackId },
    request: body('MoveSandboxChargeback', moveSandboxChargebackInput, xmlShapes.chargeback),
    answers: [ok('The chargeback', chargeback)],
  },
  'POST /chargeback/upload_representment': {
    tag: 'Chargebacks',
    summary: "Upload one evidence file for a chargeback (the original's representment upload)",
    description:
      'multipart/form-data with the file in the part named `representment_file`: PDF, TIFF, PNG or JPEG, ' +
      'told by its content; at most 9 MB (0.2 MB in sandbox mode). Kept in the database, never served back. ' +
      'Moves the chargeback to MERCHANT_RESPONDED.',
    query: { chargeback_id: chargebackIdInput.shape.chargebackId, mid: chargebackIdInput.shape.chargebackId },
    answers: [ok('The chargeback, with its evidence listed', chargeback)],
    errors: [413, 415],
  },
  'GET /chargebacks': {
    tag: 'Chargebacks',
    summary: "The merchant's chargebacks (ours), oldest first, optionally of one transaction",
    query: { transactionId: chargebackListQuery.shape.transactionId },
    answers: [ok('The chargebacks', body('ChargebackList', chargebackListBody, xmlShapes.chargebacks))],
  },
  'GET /chargebacks/:chargebackId': {
    tag: 'Chargebacks',
    summary: 'Retrieve a chargeback (ours)',
    params: { chargebackId: chargebackIdInput.shape.chargebackId },
    answers: [ok('The chargeback', chargeback)],
  },
  'GET /notification-config': {
    tag: 'Notifications',
    summary: 'Read the IPN configuration',
    answers: [ok('The configuration', notificationConfig)],
  },
  'POST /notification-config': {
    tag: 'Notifications',
    summary: 'Replace the IPN configuration',
    request: body('NotificationConfigRequest', notificationConfigInput, xmlShapes.notificationConfig),
    answers: [ok('The configuration', notificationConfig)],
  },
  'DELETE /notification-config': {
    tag: 'Notifications',
    summary: 'Delete the IPN configuration',
    answers: [noContent('Deleted')],
  },
  'POST /wallets/onboarding': {
    tag: 'Wallets',
    summary:
      'Onboard Apple Pay: register the domains that show the Apple Pay button (added to those registered)',
    request: body('OnboardWallet', onboardWalletInput, xmlShapes.wallet),
    answers: [
      {
        status: 201,
        description: 'Registered; no body',
        headers: { Location: 'The onboarding URL; its last segment is the onboarding id' },
      },
    ],
  },
  'PUT /wallets/onboarding': {
    tag: 'Wallets',
    summary: 'Register and unregister Apple Pay domains',
    request: body('UpdateWalletOnboarding', updateWalletOnboardingInput, xmlShapes.wallet),
    answers: [ok('The domains registered now', walletOnboarding)],
    errors: [404],
  },
  'GET /wallets/onboarding/:onboardingId': {
    tag: 'Wallets',
    summary: 'Retrieve Apple Pay onboarding information',
    params: { onboardingId: walletOnboardingIdInput.shape.onboardingId },
    answers: [ok('The domains registered', walletOnboarding)],
  },
  'POST /wallets': {
    tag: 'Wallets',
    summary: 'Create an Apple Pay session for a registered domain (merchant validation)',
    description:
      "`walletToken` is Apple's merchant session object, base-64 encoded: decode it and pass the object to " +
      '`ApplePaySession.completeMerchantValidation`.',
    request: body('CreateApplePaySession', createApplePaySessionInput, xmlShapes.wallet),
    answers: [ok('The session', body('ApplePaySession', applePaySessionBody, xmlShapes.wallet))],
    errors: [503],
  },
  'POST /account-updater': {
    tag: 'Account updater',
    summary: 'Send a batch of up to 2,000 cards to the account updater; each card is answered as received',
    description:
      "The answers are ready five days later by the merchant's clock; vaulted cards with a submitted number are updated in place then.",
    request: body('AccountUpdateBatchRequest', createAccountUpdateBatchInput, xmlShapes.accountUpdateBatch),
    answers: [ok('The batch as received', accountUpdateBatch)],
  },
  'GET /account-updater/:accountUpdateBatchId': {
    tag: 'Account updater',
    summary: "Retrieve a batch's answers, card by card, once they are ready",
    params: { accountUpdateBatchId: accountUpdateBatchIdInput.shape.accountUpdateBatchId },
    answers: [ok("The batch's answers", accountUpdateBatch)],
  },
  'GET /fraud-settings': {
    tag: 'Fraud screening',
    summary: "Read the merchant's fraud rules",
    answers: [ok('The rules', fraudSettings)],
  },
  'PUT /fraud-settings': {
    tag: 'Fraud screening',
    summary: "Replace the merchant's fraud rules (a rule left out is off)",
    request: body('FraudSettingsRequest', fraudSettingsInput, xmlShapes.fraudSettings),
    answers: [ok('The rules', fraudSettings)],
  },
  'GET /notification-deliveries': {
    tag: 'Notifications',
    summary: 'The IPN delivery log, newest first, a page at a time',
    query: deliveryLogQuery.shape,
    answers: [
      ok(
        'A page of deliveries',
        body('NotificationDeliveryPage', notificationDeliveryPageBody, xmlShapes.deliveryLog),
      ),
    ],
  },
  'POST /notification-deliveries/:deliveryId/redeliver': {
    tag: 'Notifications',
    summary: 'One more attempt at a delivery',
    params: { deliveryId: deliveryIdInput.shape.deliveryId },
    answers: [
      ok(
        'The delivery',
        body('NotificationDelivery', notificationDeliveryBody, xmlShapes.notificationDelivery),
      ),
    ],
  },
  'GET /audit-events': {
    tag: 'Audit trail',
    summary: "The merchant's audit events, newest first, a page at a time",
    description:
      'Ours: logins, password changes, caller credentials, IPN configuration and secret, processor accounts, captures, reversals and refunds, each with its actor, client address, request id, outcome and its link in the hash chain.',
    query: auditEventQuery.shape,
    answers: [ok('A page of events', body('AuditEventPage', auditEventPageBody, xmlShapes.auditLog))],
  },
  'GET /report/:reportCode': {
    tag: 'Reporting',
    summary: "Report data in JSON or CSV, the original's report codes and query parameters",
    description:
      'Report codes TransactionDetail, RecurringCharges, ActiveSubscriptions, PendingRefunds, Chargebacks, ' +
      'AccountBalance, PayoutSummary (SEPA settlement) and PayoutDetail (vendor payouts). Periods and dates are read in UTC-8 (PST, no ' +
      'daylight saving) on the merchant clock. Without pageSize the whole report streams; with it, one page ' +
      'and next-page-token for the next (docs/reports.md).',
    params: { reportCode: reportQuery.shape.reportCode },
    query: (() => {
      const { reportCode: _path, ...query } = reportQuery.shape;
      return query;
    })(),
    answers: [
      {
        ...file(
          ['application/json', 'text/csv'],
          'The report: JSON unless format=csv or Accept prefers text/csv',
        ),
        headers: {
          'total-row-count': 'Rows in the whole report',
          'start-row': 'The first row of this answer, from 1',
          'page-size': 'The page size asked for (paged requests only)',
          'next-page-token': 'Pass as nextPageToken for the next page; absent on the last page',
        },
      },
    ],
  },
  'POST /catalog/products': {
    tag: 'Catalog',
    summary: 'Create a product with its priced skus',
    request: body('CreateProduct', createProductInput, xmlShapes.product),
    answers: [
      {
        status: 201,
        description: 'Created; no body',
        headers: { Location: 'The product URL (GET it for the sku ids)' },
      },
    ],
  },
  'GET /catalog/products/:productId': {
    tag: 'Catalog',
    summary: 'Retrieve a product',
    params: { productId: productIdInput.shape.productId },
    answers: [ok('The product', product)],
  },
  'POST /catalog/custom-parameters': {
    tag: 'Catalog',
    summary: 'Create a custom parameter (a checkout field)',
    request: body('CreateCustomParameter', customParameterInput, xmlShapes.customParameter),
    answers: [{ status: 201, description: 'Created; no body', headers: { Location: 'The parameter URL' } }],
  },
  'GET /catalog/custom-parameters/:customParamId': {
    tag: 'Catalog',
    summary: 'Retrieve a custom parameter',
    params: { customParamId: customParameterIdInput.shape.customParamId },
    answers: [ok('The parameter', body('CustomParameter', customParameterBody, xmlShapes.customParameter))],
  },
  'PUT /catalog/custom-parameters/:customParamId': {
    tag: 'Catalog',
    summary: 'Replace a custom parameter',
    params: { customParamId: customParameterIdInput.shape.customParamId },
    request: body('UpdateCustomParameter', customParameterInput, xmlShapes.customParameter),
    answers: [noContent('Updated; no body')],
  },
  'POST /cp/user': {
    tag: 'Partners',
    summary:
      "Create a console user of the merchant, or with onbehalfofmid of a merchant the caller is a partner of (the original's Create User)",
    query: { onbehalfofmid: createConsoleUserInput.shape.onBehalfOfMid },
    request: body('CreateConsoleUser', createConsoleUserInput, xmlShapes.consoleUser),
    answers: [
      {
        status: 200,
        description: 'The user (never its password)',
        body: body('ConsoleUser', consoleUserBody, xmlShapes.consoleUser),
        headers: { Location: 'The user URL' },
      },
    ],
  },
  'POST /alt-transactions': {
    tag: 'SEPA direct debit',
    summary: 'Create a SEPA direct debit',
    request: body('CreateAltTransaction', createAltTransactionInput, xmlShapes.altTransaction),
    answers: [ok('The debit', altTransaction)],
  },
  'GET /alt-transactions/:transactionId': {
    tag: 'SEPA direct debit',
    summary: 'Retrieve a SEPA direct debit',
    params: { transactionId: altTransactionIdInput.shape.transactionId },
    answers: [ok('The debit', altTransaction)],
  },
  'GET /translations/sepa/prenotification': {
    tag: 'SEPA direct debit',
    summary:
      "A debit's pre-notification text, a SEPA subscription's next debit's (subscriptionid), or without either the template, in every language or one",
    query: {
      transactionid: preNotificationInput.shape.transactionId,
      subscriptionid: preNotificationInput.shape.subscriptionId,
      language: preNotificationInput.shape.language,
    },
    answers: [ok('The texts', body('PreNotificationTexts', sepaTranslationsBody, xmlShapes.preNotification))],
  },
  'GET /translations/sepa/mandate': {
    tag: 'SEPA direct debit',
    summary: 'The mandate text to show the shopper before submitting a debit, in every language or one',
    query: { language: mandateTextInput.shape.language },
    answers: [ok('The texts', body('MandateTexts', sepaTranslationsBody, xmlShapes.mandateText))],
  },
  'POST /batch/order-placement': {
    tag: 'Orders',
    summary: 'Place an order for a new shopper, paid by SEPA direct debit',
    request: body('BatchOrderRequest', batchOrderInput, xmlShapes.batchOrder),
    answers: [ok('The shopper and the order', body('BatchOrder', batchOrderBody, xmlShapes.batchOrder))],
  },
  'POST /orders': {
    tag: 'Orders',
    summary:
      "Place an order for an existing shopper, paid with one of its vaulted cards (the Extended API's)",
    request: body('CreateOrder', createOrderInput, xmlShapes.order),
    answers: [
      {
        status: 201,
        description: 'The order',
        body: body('Order', orderBody, xmlShapes.order),
        headers: { Location: 'The order URL' },
      },
    ],
  },
  'POST /shoppers': {
    tag: 'Orders',
    summary: "Create a shopper with its cards (the Extended API's; a vaulted shopper)",
    request: body('CreateShopper', extendedShopperInput, xmlShapes.shopper),
    answers: [{ status: 201, description: 'Created; no body', headers: { Location: 'The shopper URL' } }],
  },
  'GET /orders/:orderId': {
    tag: 'Orders',
    summary: 'Retrieve an order',
    params: { orderId: orderIdInput.shape.orderId },
    answers: [ok('The order', body('Order', orderBody, xmlShapes.order))],
  },
  'GET /shoppers/:shopperId': {
    tag: 'Orders',
    summary: 'Retrieve a shopper created by an order',
    params: { shopperId: batchShopperIdInput.shape.shopperId },
    answers: [ok('The shopper', body('Shopper', batchShopperBody, xmlShapes.shopper))],
  },
  'POST /vendors': {
    tag: 'Marketplace',
    summary:
      'Create a vendor (its bank account and identity numbers are kept sealed, shown by their last four)',
    request: body('CreateVendor', createVendorInput, xmlShapes.vendor),
    answers: [
      {
        status: 201,
        description: 'Created; no body',
        headers: { Location: 'The vendor URL, ending in its id' },
      },
    ],
  },
  'GET /vendors': {
    tag: 'Marketplace',
    summary: "The merchant's vendors, newest first, a page at a time",
    query: (({ pagesize, after, before, gettotal }) => ({ pagesize, after, before, gettotal }))(
      listVendorsInput.shape,
    ),
    answers: [ok('A page of vendors', body('VendorPage', vendorPageBody, xmlShapes.vendors))],
  },
  'GET /vendors/:vendorId': {
    tag: 'Marketplace',
    summary: 'Retrieve a vendor with its onboarding status (verification)',
    params: { vendorId },
    answers: [ok('The vendor', vendor)],
  },
  'PUT /vendors/:vendorId': {
    tag: 'Marketplace',
    summary:
      'Update a vendor: the fields sent replace the stored ones; a payout method sent replaces the old',
    params: { vendorId },
    request: body('UpdateVendor', updateVendorInput, xmlShapes.vendor),
    answers: [noContent('Updated; no body')],
  },
  'POST /recurring/plans': {
    tag: 'Recurring billing',
    summary: 'Create a plan',
    request: body('CreatePlan', createPlanInput, xmlShapes.plan),
    answers: [{ status: 200, description: 'The plan', body: plan, headers: { Location: 'The plan URL' } }],
  },
  'GET /recurring/plans': {
    tag: 'Recurring billing',
    summary: "The merchant's plans, newest first, a page at a time",
    query: { ...paging, status: listPlansInput.shape.status },
    answers: [ok('A page of plans', body('PlanPage', planPageBody, xmlShapes.plans))],
  },
  'GET /recurring/plans/:planId': {
    tag: 'Recurring billing',
    summary: 'Retrieve a plan',
    params: { planId },
    answers: [ok('The plan', plan)],
  },
  'PUT /recurring/plans/:planId': {
    tag: 'Recurring billing',
    summary: 'Update a plan (currency and frequency are fixed; a trial or initial charge cannot be added)',
    params: { planId },
    request: body('UpdatePlan', updatePlanInput, xmlShapes.plan),
    answers: [ok('The plan', plan)],
  },
  'POST /recurring/subscriptions': {
    tag: 'Recurring billing',
    summary: 'Create a subscription to a plan, making its initial charge (none during a trial)',
    request: body('CreateSubscription', createSubscriptionInput, xmlShapes.subscription),
    answers: [
      {
        status: 200,
        description: 'The subscription, with the charge made',
        body: subscription,
        headers: { Location: 'The subscription URL (when a card pays)' },
      },
    ],
  },
  'GET /recurring/subscriptions': {
    tag: 'Recurring billing',
    summary: "The merchant's plan-based subscriptions, newest first, by status, plan or shopper",
    query: subscriptionFilters,
    answers: [ok('A page of subscriptions', subscriptionPage)],
  },
  'GET /recurring/subscriptions/charges/resolve': {
    tag: 'Recurring billing',
    summary: 'The subscription charge of a transaction',
    query: resolveChargeInput.shape,
    answers: [ok('The charge', subscriptionCharge)],
  },
  'GET /recurring/subscriptions/:subscriptionId': {
    tag: 'Recurring billing',
    summary: 'Retrieve a subscription',
    params: { subscriptionId },
    answers: [ok('The subscription', subscription)],
  },
  'PUT /recurring/subscriptions/:subscriptionId': {
    tag: 'Recurring billing',
    summary: 'Update a subscription: quantity, overrides, plan switch, payment source, autoRenew, CANCELED',
    params: { subscriptionId },
    request: body('UpdateSubscription', updateSubscriptionInput, xmlShapes.subscription),
    answers: [ok('The subscription, with the plan switch charge if one was made', subscription)],
  },
  'GET /recurring/subscriptions/:subscriptionId/charges': {
    tag: 'Recurring billing',
    summary: "A subscription's charges, newest first",
    params: { subscriptionId },
    query: paging,
    answers: [ok('A page of charges', body('ChargePage', chargePageBody, xmlShapes.charges))],
  },
  'GET /recurring/subscriptions/:subscriptionId/switch-charge-amount': {
    tag: 'Recurring billing',
    summary: 'What switching to another plan would charge now',
    params: { subscriptionId },
    query: {
      newplanid: switchChargeAmountInput.shape.newplanid,
      newquantity: switchChargeAmountInput.shape.newquantity,
    },
    answers: [
      ok('The amount', body('SwitchChargeAmount', switchChargeAmountBody, xmlShapes.switchChargeAmount)),
    ],
  },
  'GET /subscriptions/:subscriptionId/run-specific': {
    tag: 'Recurring billing',
    summary:
      "Sandbox: move the merchant's clock to the subscription's next charge (or retry) and run renewals",
    params: { subscriptionId },
    answers: [noContent('The clock is at the charge; the renewal worker runs it')],
  },
  'POST /subscriptions/:subscriptionId/subscription-charges': {
    tag: 'Recurring billing',
    summary: 'Extended API: charge a subscription outside its schedule',
    params: { subscriptionId },
    request: body(
      'ExtendedSubscriptionCharge',
      extendedSubscriptionChargeInput,
      xmlShapes.subscriptionCharge,
    ),
    answers: [
      {
        status: 201,
        description: 'Charged; no body',
        headers: { Location: 'The charge URL; its last segment is the chargeId' },
      },
    ],
  },
  'POST /recurring/ondemand': {
    tag: 'Recurring billing',
    summary: 'Create a merchant-managed subscription with its first charge',
    request: body('CreateMerchantManagedSubscription', createOndemandInput, xmlShapes.charge),
    answers: [ok('The charge, naming its subscription', subscriptionCharge)],
  },
  'GET /recurring/ondemand': {
    tag: 'Recurring billing',
    summary: "The merchant's merchant-managed subscriptions, newest first",
    query: subscriptionFilters,
    answers: [ok('A page of subscriptions', subscriptionPage)],
  },
  'POST /recurring/ondemand/:subscriptionId': {
    tag: 'Recurring billing',
    summary: 'Charge a merchant-managed subscription',
    params: { subscriptionId },
    request: body('MerchantManagedCharge', ondemandChargeInput, xmlShapes.charge),
    answers: [ok('The charge', subscriptionCharge)],
  },
  'GET /recurring/ondemand/:subscriptionId': {
    tag: 'Recurring billing',
    summary: 'Retrieve a merchant-managed subscription',
    params: { subscriptionId },
    answers: [ok('The subscription', subscription)],
  },
  'PUT /recurring/ondemand/:subscriptionId': {
    tag: 'Recurring billing',
    summary: 'Update a merchant-managed subscription: payment source, descriptor, CANCELED',
    params: { subscriptionId },
    request: body('UpdateMerchantManagedSubscription', updateSubscriptionInput, xmlShapes.subscription),
    answers: [ok('The subscription', subscription)],
  },
  'GET /openapi.json': {
    tag: 'API description',
    public: true,
    summary: 'This OpenAPI 3.1 document',
    answers: [file('application/json', 'The document')],
  },
  'GET /docs': {
    tag: 'API description',
    public: true,
    summary: 'The reference page rendering this document',
    answers: [file('text/html', 'The page')],
  },
  'GET /docs/:file': {
    tag: 'API description',
    public: true,
    summary: "The reference page's scripts and style sheets",
    answers: [file(scriptsAndStyles, 'The script or style sheet')],
  },
};
