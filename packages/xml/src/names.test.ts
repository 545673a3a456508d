import { describe, expect, it } from 'vitest';
import { toElementName, toJsonKey } from './names.ts';

// Every JSON name of an XML-capable resource (docs/conformance.md, XML).
const names = `
  cardTransactionType transactionId merchantTransactionId softDescriptor amount currency
  vaultedShopperId pfToken cardHolderInfo firstName lastName zip creditCard cardNumber securityCode
  expirationMonth expirationYear cardLastFourDigits cardType cardSubType cardCategory wallet
  walletType encodedPaymentToken processingInfo processingStatus cvvResponseCode avsResponseCodeZip
  avsResponseCodeAddress avsResponseCodeName authorizationCode networkTransactionId
  sepaDirectDebitTransaction iban payerInfo authorizedByShopper ibanFirstFour ibanLastFour mandateId
  mandateDate preNotificationText preNotificationTranslationRef shopper webInfo ip remoteHost
  userAgent shopperInfo storeId locale shopperContactInfo title email companyName address1 address2
  address city state country phone fax paymentInfo sepaDirectDebitsInfo sepaDirectDebitInfo
  billingContactInfo sepaDirectDebit order orderingShopper cart cartItem sku skuId skuName quantity
  expectedTotalPrice shopperId shippingContactInfo invoiceContactsInfo invoiceContactInfo default
  creditCardsInfo creditCardInfo ecpsInfo balance shopperCurrency orderId chargedCurrency itemSubTotal
  tax taxRate totalCartCost postSaleInfo invoices invoice invoiceId url financialTransactions
  financialTransaction status dateDue dateCreated paymentMethod targetBalance transactionData skus
  fulfillment licenseKeys ipnDestinations ipnDestination ipnUrl ensureNotificationReceipt
  receiveAffiliateNotifications sendAuthOnly sendCancellation sendCancelOnRenewal sendCharge
  sendChargeback sendChargebackStatusChanged sendContractChange sendCancellationRefund
  sendFailedPayoutTransfer sendSubscriptionReminder sendDecline sendRefund sendRecurring sendCcFailure
  sendSubCcFailure sendUnderVendorReview sendPaymentUpdate sendPaymentUpdateFailure sendAccountUpdater
  sendPayout sendVendorStatusChanged sendFraudDecline sendChargePending sendShopperDeleted
  sendVendorReportAvailable sendMerchantOnboarded sendOfflineOrder sendCcStatusChanged
  refundTransactionId reason refundStatus merchantShopperId paymentSources lastPaymentInfo message
  errorName code description invalidProperty name messageValue
`
  .trim()
  .split(/\s+/);

describe('names', () => {
  it('converts the documented examples', () => {
    expect(toElementName('cardTransactionType')).toBe('card-transaction-type');
    expect(toElementName('cardHolderInfo')).toBe('card-holder-info');
    expect(toElementName('address1')).toBe('address1');
    expect(toElementName('sepaDirectDebitTransaction')).toBe('sepa-direct-debit-transaction');
    expect(toElementName('ibanFirstFour')).toBe('iban-first-four');
    expect(toJsonKey('card-transaction-type')).toBe('cardTransactionType');
    expect(toJsonKey('address2')).toBe('address2');
    expect(toJsonKey('pre-notification-translation-ref')).toBe('preNotificationTranslationRef');
  });

  it('round-trips every name of the interface', () => {
    expect(names.length).toBeGreaterThan(150);
    for (const name of names) expect(toJsonKey(toElementName(name))).toBe(name);
  });

  it('round-trips digits and single-letter words', () => {
    for (const name of ['address1Line', 'a1b2', 'x', 'taxAmountUSD', 'line2Zip']) {
      expect(toJsonKey(toElementName(name))).toBe(name);
    }
  });

  it('passes names that are not kebab-case through unchanged, deterministically', () => {
    for (const name of [
      'card_number',
      'Card-Number',
      'card--number',
      'address-1',
      '-x',
      'x-',
      'a.b',
      'ÄBC',
    ]) {
      expect(toJsonKey(name)).toBe(name);
    }
  });

  it('refuses keys that have no element name', () => {
    for (const key of ['', 'Amount', 'card_number', 'card-number', '1st', 'a b', '__proto__']) {
      expect(() => toElementName(key)).toThrow(TypeError);
    }
  });
});
