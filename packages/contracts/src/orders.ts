import { z } from 'zod';
import {
  accountNumberInput,
  type EcpAccount,
  type EcpTransactionInput,
  ecpAccountTypeInput,
  ecpTransactionInput,
  routingNumberInput,
} from './ach.ts';
import {
  amountInput,
  booleanInput,
  checkAmountFitsCurrency,
  currencyInput,
  optionalText,
  positiveIntegerInput,
  refusedElement,
  refuseRepeats,
  text,
} from './primitives.ts';
import { ibanInput, type SepaDebitDetails, type SepaStatus } from './sepa.ts';
import { type CardResponse, softDescriptorInput } from './transactions.ts';

/**
 * Order placement in one batch (see docs/conformance.md, Batch order placement): a new shopper with a SEPA direct
 * debit account, and an order of catalogue skus paid by that debit. JSON names here; the XML document
 * (root batch-order) is their kebab-case, arrays repeating the singular element.
 */

export const maxCartItems = 100;
export const maxQuantity = 9999;

const ipAddress = z
  .string()
  .trim()
  .refine(
    (ip) => z.ipv4().safeParse(ip).success || z.ipv6().safeParse(ip).success,
    'must be an IPv4 or IPv6 address',
  );

export const webInfoInput = z.object({
  ip: ipAddress,
  remoteHost: optionalText(255),
  userAgent: optionalText(500),
});

const countryInput = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{2}$/, 'must be a two-letter country code');

export const localeInput = z
  .string()
  .trim()
  .max(10, 'must be at most 10 characters')
  .regex(/^[a-zA-Z]{2,3}(?:[-_][a-zA-Z0-9]{2,6})?$/, 'must be a locale such as en or en_US');

export const shopperContactInfoInput = z.object({
  title: optionalText(20),
  firstName: text(100),
  lastName: text(100),
  email: z.email('must be an email address').max(200),
  companyName: optionalText(200),
  address1: optionalText(200),
  city: optionalText(100),
  zip: optionalText(20),
  country: countryInput,
  phone: optionalText(40),
  fax: optionalText(40),
});

export const sepaBillingContactInput = z.object({
  firstName: optionalText(100),
  lastName: optionalText(100),
  address1: optionalText(200),
  city: optionalText(100),
  zip: optionalText(20),
  country: countryInput.optional(),
});

const sepaDirectDebitInfoInput = z.object({
  billingContactInfo: sepaBillingContactInput.optional(),
  sepaDirectDebit: z.object({ iban: ibanInput }),
});

/** The Extended API's ECP account in the shopper's payment info (ecp-info.xsd's ecp-info). */
const ecpInfoInput = z.object({
  billingContactInfo: sepaBillingContactInput.optional(),
  ecp: z.object({
    accountNumber: accountNumberInput,
    routingNumber: routingNumberInput,
    accountType: ecpAccountTypeInput,
  }),
});

/**
 * The account an ordering shopper names (order.xsd's `ecp` or `sepa-direct-debit`) is the one of the
 * shopper's payment info, which pays: each number it gives must be that account's, a masked account number
 * must end in its last four digits. No number is part of a message.
 */
function orderingAccountIsPaymentInfos(
  ordering: {
    ecp?: EcpTransactionInput | undefined;
    sepaDirectDebit?: { iban?: string | undefined } | undefined;
  },
  paymentInfo: {
    ecpsInfo?:
      | Array<{ ecp: { accountNumber: string; routingNumber: string; accountType: string } }>
      | undefined;
    sepaDirectDebitsInfo?: Array<{ sepaDirectDebit: { iban: string } }> | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const refuse = (element: 'ecp' | 'sepaDirectDebit', message: string) =>
    ctx.addIssue({ code: 'custom', path: ['order', 'orderingShopper', element], message });
  const paying = paymentInfo.ecpsInfo?.[0]?.ecp;
  const { ecp, sepaDirectDebit } = ordering;
  if (ecp) {
    const publicDigits = ecp.publicAccountNumber?.replace(/\D/g, '');
    const matches =
      paying !== undefined &&
      (ecp.accountNumber ?? paying.accountNumber) === paying.accountNumber &&
      (ecp.routingNumber ?? paying.routingNumber) === paying.routingNumber &&
      (ecp.accountType ?? paying.accountType) === paying.accountType &&
      (!publicDigits || paying.accountNumber.endsWith(publicDigits.slice(-4)));
    if (!matches) refuse('ecp', "must be the account of the shopper's ecps-info, which pays the order");
  }
  if (sepaDirectDebit) {
    const iban = paymentInfo.sepaDirectDebitsInfo?.[0]?.sepaDirectDebit.iban;
    if (!iban || (sepaDirectDebit.iban ?? iban) !== iban)
      refuse(
        'sepaDirectDebit',
        "must be the account of the shopper's sepa-direct-debits-info, which pays the order",
      );
  }
}

/** An order paid by SEPA direct debit is in euros, one paid by ECP (ACH) in US dollars. */
export function batchOrderMethod(paymentInfo: { ecpsInfo?: unknown[] | undefined }) {
  return paymentInfo.ecpsInfo?.length
    ? ({ currency: 'USD', name: 'ECP' } as const)
    : ({ currency: 'EUR', name: 'SEPA direct debit' } as const);
}

const quantityInput = positiveIntegerInput.refine(
  (quantity) => quantity <= maxQuantity,
  `must be at most ${maxQuantity}`,
);

export const maxSkuParameters = 20;

/**
 * A cart item's values of the merchant's custom parameters (order.xsd's sku-parameter): each names a parameter
 * by its title and gives the shopper's value, checked against the parameter's type in core.
 */
const skuParameterInput = z.object({
  paramName: text(100),
  paramValue: z
    .string()
    .max(4000, 'must be at most 4000 characters')
    .refine((value) => !value.includes('\u0000'), 'must not contain NUL characters'),
});

/** An order's cart: catalogue skus by id, each with its quantity and the values of its custom parameters. */
export const cartInput = z.object({
  cartItem: z
    .array(
      z
        .object({
          sku: z.object({ skuId: positiveIntegerInput }),
          quantity: quantityInput,
          skuParameter: z
            .array(skuParameterInput)
            .max(maxSkuParameters, `must hold at most ${maxSkuParameters} sku-parameter elements`)
            .optional(),
        })
        .superRefine((item, ctx) =>
          refuseRepeats(
            ctx,
            item.skuParameter,
            { list: 'skuParameter', property: 'paramName' },
            (parameter) => parameter.paramName.toLowerCase(),
            'names a parameter an earlier sku-parameter of this item already gives',
          ),
        ),
    )
    .min(1, 'must hold at least one cart-item')
    .max(maxCartItems, `must hold at most ${maxCartItems} cart-item elements`),
});

/** What the shopper saw as the total, in the currency the order is paid in: checked against the cart. */
export const expectedTotalPriceInput = z
  .object({ amount: amountInput, currency: currencyInput })
  .superRefine((price, ctx) => checkAmountFitsCurrency(price.amount, price.currency, ctx));

export const batchOrderInput = z
  .object({
    shopper: z.object({
      webInfo: webInfoInput,
      shopperInfo: z.object({
        storeId: optionalText(20),
        locale: localeInput.optional(),
        shopperCurrency: currencyInput.optional(),
        shopperContactInfo: shopperContactInfoInput,
        // One account, SEPA or ECP: the order is paid by one debit.
        paymentInfo: z
          .object({
            sepaDirectDebitsInfo: z
              .array(sepaDirectDebitInfoInput)
              .max(1, 'must hold one sepa-direct-debit-info')
              .optional(),
            ecpsInfo: z.array(ecpInfoInput).max(1, 'must hold one ecp-info').optional(),
          })
          .superRefine((info, ctx) => {
            const accounts = (info.sepaDirectDebitsInfo?.length ?? 0) + (info.ecpsInfo?.length ?? 0);
            if (accounts === 1) return;
            ctx.addIssue({
              code: 'custom',
              path: [info.ecpsInfo?.length ? 'ecpsInfo' : 'sepaDirectDebitsInfo'],
              message:
                accounts === 0
                  ? 'must hold exactly one sepa-direct-debit-info, or one ecp-info in ecps-info'
                  : 'send one account: a sepa-direct-debit-info or an ecp-info',
            });
          }),
      }),
    }),
    order: z.object({
      orderingShopper: z.object({
        // order.xsd lets the ordering shopper name the account that pays: it must be the payment info's
        ecp: ecpTransactionInput.optional(),
        sepaDirectDebit: z.object({ iban: ibanInput.optional() }).optional(),
        creditCard: refusedElement("a batch order is paid by a debit of the shopper's account, not by card"),
        webInfo: webInfoInput,
        authorizedByShopper: booleanInput.refine(
          (accepted) => accepted,
          'must be true: the shopper has to authorize the debit of the account',
        ),
      }),
      cart: cartInput,
      expectedTotalPrice: expectedTotalPriceInput,
      softDescriptor: softDescriptorInput.optional(),
    }),
  })
  .superRefine((request, ctx) => {
    orderingAccountIsPaymentInfos(
      request.order.orderingShopper,
      request.shopper.shopperInfo.paymentInfo,
      ctx,
    );
    const method = batchOrderMethod(request.shopper.shopperInfo.paymentInfo);
    if (request.order.expectedTotalPrice.currency !== method.currency) {
      ctx.addIssue({
        code: 'custom',
        path: ['order', 'expectedTotalPrice', 'currency'],
        message: `${method.currency} only: an order paid by ${method.name} is in ${method.currency}`,
      });
    }
  });

export type BatchOrderInput = z.input<typeof batchOrderInput>;
export type BatchOrderRequest = z.output<typeof batchOrderInput>;

export const orderIdInput = z.object({ orderId: positiveIntegerInput });
export const batchShopperIdInput = z.object({ shopperId: positiveIntegerInput });

// ---------------------------------------------------------------------------------------------------------
// Responses. Links (invoice url, pre-notification-translation-ref) leave core as paths under /services/2;
// the facade, which knows the public base URL, makes them absolute.
// ---------------------------------------------------------------------------------------------------------

export type ShopperContactInfo = z.output<typeof shopperContactInfoInput>;
export type SkuParameter = z.output<typeof skuParameterInput>;
export type SepaBillingContact = z.output<typeof sepaBillingContactInput>;

export interface ShippingContactInfo {
  firstName: string;
  lastName: string;
  address1?: string;
  city?: string;
  zip?: string;
  country: string;
}

export interface BatchShopperInfo {
  shopperId: number;
  shopperContactInfo: Partial<ShopperContactInfo>;
  shippingContactInfo: Partial<ShippingContactInfo>;
  invoiceContactsInfo: Array<{ default: boolean } & Partial<ShopperContactInfo>>;
  paymentInfo: {
    creditCardsInfo: Array<{
      billingContactInfo?: Record<string, string>;
      creditCard: CardResponse;
    }>;
    ecpsInfo: Array<{ billingContactInfo?: SepaBillingContact; ecp: EcpAccount }>;
    sepaDirectDebitsInfo: Array<{
      billingContactInfo?: SepaBillingContact;
      sepaDirectDebit: { ibanFirstFour: string; ibanLastFour: string };
    }>;
    /** shopper.xsd's balance: currency, then value. */
    balance: { currency: string; value: number };
  };
  storeId?: string;
  shopperCurrency: string;
  locale: string;
}

/** GET /shoppers/{id}: root shopper. */
export interface BatchShopper {
  shopperInfo: BatchShopperInfo;
}

interface FinancialTransactionFacts {
  status: string;
  dateDue: string;
  dateCreated: string;
  amount: number;
  tax: number;
  taxRate: number;
  currency: string;
  softDescriptor: string;
  targetBalance: 'PLIMUS_ACCOUNT';
  invoiceContactInfo: Partial<ShopperContactInfo>;
  skus: Array<{ skuId: number }>;
}

/** A batch order's payment: its SEPA debit. */
export interface SepaFinancialTransaction extends FinancialTransactionFacts {
  status: SepaStatus;
  paymentMethod: 'SEPA Direct Debit';
  /** The wallet provider's transaction data; empty for a SEPA debit. */
  paypalTransactionData: Record<string, never>;
  sepaDirectDebit: SepaDebitDetails;
}

/** An Extended order's payment: the sale of the shopper's vaulted card. */
export interface CardFinancialTransaction extends FinancialTransactionFacts {
  status: 'APPROVED';
  paymentMethod: 'Credit Card';
  creditCard: Pick<CardResponse, 'cardLastFourDigits' | 'cardType'>;
  authorizationCode?: string;
}

/** A batch order paid by ECP: its ACH debit, the account as answers show it. */
export interface EcpFinancialTransaction extends FinancialTransactionFacts {
  status: SepaStatus;
  paymentMethod: 'ECP';
  ecp: EcpAccount;
}

export type FinancialTransaction =
  | SepaFinancialTransaction
  | EcpFinancialTransaction
  | CardFinancialTransaction;

export interface Invoice {
  invoiceId: number;
  url: string;
  financialTransactions: FinancialTransaction[];
}

/** GET /orders/{id}: root order. */
export interface Order {
  orderId: number;
  /** The merchant's id of an Extended order (its sale's merchantTransactionId). */
  sellerOrderId?: string;
  softDescriptor?: string;
  orderingShopper: {
    shopperId: number;
    /** The card an Extended order charged. */
    creditCard?: Pick<CardResponse, 'cardLastFourDigits' | 'cardType'>;
  };
  cart: {
    chargedCurrency: string;
    cartItem: Array<{
      sku: { skuId: number; skuName: string };
      quantity: number;
      /** The custom parameters' values given with the item, each under the parameter's title. */
      skuParameter?: SkuParameter[];
      itemSubTotal: number;
    }>;
    tax: number;
    taxRate: number;
    totalCartCost: number;
  };
  postSaleInfo: { invoices: Invoice[] };
  fulfillment: { licenseKeys: string[] };
}

/** POST /batch/order-placement: root batch-order. */
export interface BatchOrder {
  shopper: BatchShopper;
  order: Order;
}
