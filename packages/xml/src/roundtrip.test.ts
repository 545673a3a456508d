import { describe, expect, it } from 'vitest';
import { fromXml, type ToXmlOptions, toXml, type XmlShape } from './index.ts';

// The shapes a facade would declare for each resource.
const cardTransaction: XmlShape = { root: 'card-transaction', upperCaseValues: ['processingStatus'] };
const altTransaction: XmlShape = { root: 'alt-transaction' };
const vaultedShopper: XmlShape = {
  root: 'vaulted-shopper',
  repeated: ['creditCardInfo', 'sepaDirectDebitInfo'],
};
const messages: XmlShape = { root: 'messages', repeated: ['message'] };
const notificationConfig: XmlShape = {
  root: 'notification-config',
  wrapped: { ipnDestinations: 'ipn-destination' },
};
const batchOrder: XmlShape = {
  root: 'batch-order',
  repeated: ['cartItem', 'sepaDirectDebitInfo', 'creditCardInfo', 'invoice', 'financialTransaction'],
};
const refund: XmlShape = { root: 'refund' };

const twoDecimals: ToXmlOptions = {
  formatNumber: (key, value) => (key === 'amount' ? value.toFixed(2) : String(value)),
};

/** What fromXml gives back for a JSON value: every leaf a string, nulls gone. */
function asRead(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item != null).map(asRead);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item != null)
        .map(([key, item]) => [key, asRead(item)]),
    );
  }
  return String(value);
}

function roundTrip(value: Record<string, unknown>, shape: XmlShape, options?: ToXmlOptions) {
  return fromXml(toXml(value, shape, options), shape);
}

describe('round trip per resource', () => {
  it('card-transaction request (direct card sale)', () => {
    const request = {
      cardTransactionType: 'AUTH_CAPTURE',
      softDescriptor: 'DescTest',
      amount: 11,
      currency: 'USD',
      merchantTransactionId: undefined,
      cardHolderInfo: { firstName: 'test first name', lastName: 'test last name', zip: '02110' },
      creditCard: {
        cardNumber: '4263982640269299',
        securityCode: '837',
        expirationMonth: '02',
        expirationYear: '2030',
      },
    };
    expect(roundTrip(request, cardTransaction)).toEqual(asRead(request));
  });

  it('card-transaction response, with SUCCESS upper-cased in XML and amounts to two decimals', () => {
    const response = {
      cardTransactionType: 'AUTH_CAPTURE',
      transactionId: '1012345678',
      softDescriptor: 'BLS*DescTest',
      amount: 11.5,
      currency: 'USD',
      cardHolderInfo: { firstName: 'test first name', lastName: 'test last name', zip: '02110' },
      vaultedShopperId: 19549018,
      creditCard: {
        cardLastFourDigits: '9299',
        cardType: 'VISA',
        cardSubType: 'CREDIT',
        cardCategory: 'CLASSIC',
        expirationMonth: '02',
        expirationYear: '2030',
      },
      processingInfo: {
        processingStatus: 'success',
        cvvResponseCode: 'MA',
        authorizationCode: '654321',
        networkTransactionId: '0123456789012345',
        avsResponseCodeZip: 'U',
        avsResponseCodeAddress: 'U',
        avsResponseCodeName: 'U',
      },
    };
    const xml = toXml(response, cardTransaction, twoDecimals);
    expect(xml).toContain('<amount>11.50</amount>');
    expect(xml).toContain('<vaulted-shopper-id>19549018</vaulted-shopper-id>');
    expect(xml).toContain('<processing-status>SUCCESS</processing-status>');
    // Upper-casing is one-way: the reader returns what the document says.
    expect(fromXml(xml, cardTransaction)).toEqual({
      ...(asRead(response) as object),
      amount: '11.50',
      processingInfo: { ...(asRead(response.processingInfo) as object), processingStatus: 'SUCCESS' },
    });
  });

  it('card-transaction reversal and wallet requests', () => {
    const reversal = { cardTransactionType: 'AUTH_REVERSAL', transactionId: '1012345678' };
    expect(roundTrip(reversal, cardTransaction)).toEqual(reversal);
    const wallet = {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 25,
      currency: 'EUR',
      vaultedShopperId: 19549018,
      wallet: { walletType: 'PROVIDER_PAY', encodedPaymentToken: 'eyJzaWduYXR1cmUiOiJNRVVDSVFEK3R4PT0ifQ==' },
    };
    expect(roundTrip(wallet, cardTransaction)).toEqual(asRead(wallet));
  });

  it('vaulted-shopper with two credit-card-info entries, and with one (still an array)', () => {
    const card = (last4: string, type: string) => ({
      creditCard: {
        cardLastFourDigits: last4,
        cardType: type,
        expirationMonth: '11',
        expirationYear: '2031',
      },
    });
    const shopper = {
      vaultedShopperId: 19549018,
      firstName: 'Anna',
      lastName: 'Müller',
      email: 'anna@example.com',
      country: 'de',
      city: 'Berlin',
      address: 'Unter den Linden 1',
      address2: 'Hinterhaus',
      zip: '10117',
      shopperCurrency: 'EUR',
      paymentSources: {
        creditCardInfo: [
          {
            billingContactInfo: { firstName: 'Anna', lastName: 'Müller', address1: 'Unter den Linden 1' },
            ...card('9299', 'VISA'),
          },
          card('0903', 'MASTERCARD'),
        ],
      },
    };
    const xml = toXml(shopper, vaultedShopper);
    expect(xml.match(/<credit-card-info>/g)).toHaveLength(2);
    expect(xml).toContain('<payment-sources><credit-card-info><billing-contact-info>');
    expect(fromXml(xml, vaultedShopper)).toEqual(asRead(shopper));

    const oneCard = { vaultedShopperId: 7, paymentSources: { creditCardInfo: [card('9299', 'VISA')] } };
    const read = roundTrip(oneCard, vaultedShopper);
    expect(read).toEqual(asRead(oneCard));
    expect(Array.isArray((read.paymentSources as Record<string, unknown>).creditCardInfo)).toBe(true);
  });

  it('messages error body', () => {
    const body = {
      message: [
        {
          errorName: 'VALIDATION_GENERAL_FAILURE',
          code: 10001,
          description: 'currency: EUR only',
          invalidProperty: { name: 'currency', messageValue: 'USD' },
        },
        { errorName: 'DO_NOT_HONOR', code: 14002, description: 'Transaction failed because of a decline.' },
      ],
    };
    expect(roundTrip(body, messages)).toEqual(asRead(body));
    const single = { message: [{ errorName: 'UNAUTHORIZED', code: 10401, description: 'Unauthorized' }] };
    expect(roundTrip(single, messages)).toEqual(asRead(single));
  });

  it('notification-config with wrapped ipn-destinations', () => {
    const config = {
      ipnDestinations: [
        { ipnUrl: 'https://merchant.example.com/ipn?a=1&b=2', sendCharge: true, sendRefund: false },
        { ipnUrl: 'https://backup.example.com/ipn', sendCharge: false, sendChargePending: true },
      ],
      ensureNotificationReceipt: true,
      receiveAffiliateNotifications: false,
    };
    const xml = toXml(config, notificationConfig);
    expect(xml).toContain(
      '<ipn-destinations><ipn-destination><ipn-url>https://merchant.example.com/ipn?a=1&amp;b=2</ipn-url>',
    );
    expect(xml.match(/<ipn-destinations>/g)).toHaveLength(1);
    expect(fromXml(xml, notificationConfig)).toEqual(asRead(config));

    const one = { ipnDestinations: [{ ipnUrl: 'https://merchant.example.com/ipn' }] };
    expect(roundTrip(one, notificationConfig)).toEqual(one);
    const none = { ipnDestinations: [], ensureNotificationReceipt: false };
    expect(toXml(none, notificationConfig)).toContain('<ipn-destinations/>');
    expect(roundTrip(none, notificationConfig)).toEqual({
      ipnDestinations: [],
      ensureNotificationReceipt: 'false',
    });
  });

  it('batch-order request with two cart-item', () => {
    const webInfo = {
      ip: '62.219.121.253',
      remoteHost: 'www.merchant.com',
      userAgent: 'Mozilla/5.0 (X11; Linux)',
    };
    const order = {
      shopper: {
        webInfo,
        shopperInfo: {
          storeId: '10700',
          locale: 'en',
          shopperContactInfo: {
            title: 'Mr',
            firstName: 'John',
            lastName: 'Doe',
            email: 'john@example.com',
            companyName: 'Doe & Sons <GmbH>',
            address1: '1 Main Street',
            city: 'Köln',
            zip: '50667',
            country: 'de',
            phone: '+49 221 000000',
            fax: '',
          },
          paymentInfo: {
            sepaDirectDebitsInfo: {
              sepaDirectDebitInfo: [
                {
                  billingContactInfo: {
                    firstName: 'John',
                    lastName: 'Doe',
                    address1: '1 Main Street',
                    city: 'Köln',
                    zip: '50667',
                    country: 'de',
                  },
                  sepaDirectDebit: { iban: 'DE89370400440532013000' },
                },
              ],
            },
          },
        },
      },
      order: {
        orderingShopper: { webInfo, authorizedByShopper: true },
        cart: {
          cartItem: [
            { sku: { skuId: '2152762' }, quantity: 1 },
            { sku: { skuId: '2152764' }, quantity: 2 },
          ],
        },
        expectedTotalPrice: { amount: 30, currency: 'EUR' },
      },
    };
    const xml = toXml(order, batchOrder, twoDecimals);
    expect(xml).toContain(
      '<cart><cart-item><sku><sku-id>2152762</sku-id></sku><quantity>1</quantity></cart-item><cart-item>',
    );
    expect(xml).toContain('<fax/>');
    const expected = asRead(order) as { order: { expectedTotalPrice: { amount: string } } };
    expected.order.expectedTotalPrice.amount = '30.00';
    expect(fromXml(xml, batchOrder)).toEqual(expected);
  });

  it('card-transaction with Level 3 data: names the camelCase rule cannot give, both ways', () => {
    const shape: XmlShape = {
      root: 'card-transaction',
      repeated: ['level3DataItems', 'metaData'],
      elementNames: { level3Data: 'level-3-data', level3DataItems: 'level-3-data-item' },
    };
    const body = {
      amount: 10,
      level3Data: { customerReferenceNumber: 'PO-1', level3DataItems: [{ lineItemTotal: 10 }] },
      transactionMetaData: { metaData: [{ metaKey: 'order', metaValue: '7', metaDescription: 'Order' }] },
    };
    const xml = toXml(body, shape);
    expect(xml).toContain(
      '<level-3-data><customer-reference-number>PO-1</customer-reference-number><level-3-data-item><line-item-total>10</line-item-total></level-3-data-item></level-3-data>',
    );
    expect(fromXml(xml, shape)).toEqual(asRead(body));
  });

  it('refund response', () => {
    const body = {
      refundTransactionId: '1012345679',
      transactionId: '1012345678',
      amount: 5.25,
      currency: 'USD',
      reason: 'Customer returned the "wrong" item',
      refundStatus: 'SUCCESS',
    };
    expect(roundTrip(body, refund, twoDecimals)).toEqual(asRead(body));
  });

  it('sepa alt-transaction request and response', () => {
    const request = {
      sepaDirectDebitTransaction: { iban: 'DE89370400440532013000' },
      payerInfo: { firstName: 'Jane', lastName: "O'Brien" },
      amount: '20.00',
      currency: 'EUR',
      authorizedByShopper: true,
    };
    expect(roundTrip(request, altTransaction)).toEqual(asRead(request));
    const response = {
      transactionId: '1012345680',
      amount: 20,
      currency: 'EUR',
      payerInfo: { firstName: 'Jane', lastName: "O'Brien" },
      vaultedShopperId: 19549019,
      sepaDirectDebitTransaction: {
        ibanFirstFour: 'DE89',
        ibanLastFour: '3000',
        mandateId: 'MNDT-19549019-1',
        mandateDate: '05-Mar-26',
        preNotificationText:
          'We will debit EUR 20.00 from your account on 10-Mar-26 (mandate MNDT-19549019-1).',
        preNotificationTranslationRef:
          'https://pay.example.com/services/2/translations/sepa/prenotification?transactionid=1012345680',
      },
      processingInfo: { processingStatus: 'PENDING' },
    };
    const xml = toXml(response, altTransaction, twoDecimals);
    expect(xml).toContain('<iban-first-four>DE89</iban-first-four>');
    expect(fromXml(xml, altTransaction)).toEqual({ ...(asRead(response) as object), amount: '20.00' });
  });
  it('batch-order response: wrapper/item pairs at several depths, empty wrappers, fixed decimals', () => {
    const shape: XmlShape = {
      root: 'batch-order',
      repeated: ['cartItem'],
      wrapped: {
        invoiceContactsInfo: 'invoice-contact-info',
        creditCardsInfo: 'credit-card-info',
        sepaDirectDebitsInfo: 'sepa-direct-debit-info',
        invoices: 'invoice',
        financialTransactions: 'financial-transaction',
        skus: 'sku',
        licenseKeys: 'license-key',
      },
      decimals: { itemSubTotal: 2, tax: 2, totalCartCost: 2 },
    };
    const body = {
      shopper: {
        shopperInfo: {
          shopperId: 19000001,
          invoiceContactsInfo: [{ default: true, firstName: 'Jane' }],
          paymentInfo: {
            creditCardsInfo: [],
            sepaDirectDebitsInfo: [{ sepaDirectDebit: { ibanFirstFour: 'DE89', ibanLastFour: '3000' } }],
          },
        },
      },
      order: {
        orderId: 30000001,
        cart: {
          chargedCurrency: 'EUR',
          cartItem: [{ sku: { skuId: 2000001, skuName: 'A' }, quantity: 2, itemSubTotal: 20 }],
          tax: 0,
          taxRate: 0,
          totalCartCost: 20,
        },
        postSaleInfo: {
          invoices: [
            {
              invoiceId: 40000001,
              financialTransactions: [
                {
                  status: 'PENDING',
                  amount: 20,
                  currency: 'EUR',
                  paypalTransactionData: {},
                  skus: [{ skuId: 2000001 }],
                },
              ],
            },
          ],
        },
        fulfillment: { licenseKeys: [] },
      },
    };
    const xml = toXml(body, shape, twoDecimals);
    expect(xml).toContain(
      '<invoice-contacts-info><invoice-contact-info><default>true</default><first-name>Jane</first-name>' +
        '</invoice-contact-info></invoice-contacts-info><payment-info><credit-cards-info/>' +
        '<sepa-direct-debits-info><sepa-direct-debit-info><sepa-direct-debit><iban-first-four>DE89',
    );
    expect(xml).toContain(
      '<cart><charged-currency>EUR</charged-currency><cart-item><sku><sku-id>2000001</sku-id><sku-name>A' +
        '</sku-name></sku><quantity>2</quantity><item-sub-total>20.00</item-sub-total></cart-item>' +
        '<tax>0.00</tax><tax-rate>0</tax-rate><total-cart-cost>20.00</total-cart-cost></cart>',
    );
    expect(xml).toContain(
      '<post-sale-info><invoices><invoice><invoice-id>40000001</invoice-id><financial-transactions>' +
        '<financial-transaction><status>PENDING</status><amount>20.00</amount><currency>EUR</currency>' +
        '<paypal-transaction-data/><skus><sku><sku-id>2000001</sku-id></sku></skus></financial-transaction>' +
        '</financial-transactions></invoice></invoices></post-sale-info><fulfillment><license-keys/></fulfillment>',
    );
    const read = fromXml(xml, shape) as typeof body;
    expect(read.order.postSaleInfo.invoices[0]?.financialTransactions[0]?.skus).toEqual([
      { skuId: '2000001' },
    ]);
    expect(read.order.cart.cartItem).toHaveLength(1);
    expect(read.shopper.shopperInfo.paymentInfo.creditCardsInfo).toEqual([]);
    expect(read.order.fulfillment.licenseKeys).toEqual([]);
  });
});
