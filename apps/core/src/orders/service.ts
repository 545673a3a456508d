import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type BatchOrder,
  type BatchOrderRequest,
  type BatchShopper,
  batchOrderMethod,
  billingContactFields,
  type CardBrand,
  type CardFinancialTransaction,
  DomainError,
  type FinancialTransaction,
  minorToAmount,
  minorToDecimal,
  type Order,
  type SepaBillingContact,
  type ShopperContactInfo,
  type SkuParameter,
  shortDate,
  toMinorUnits,
} from '@paywire/contracts';
import { achMandate } from '../ach/accounts.ts';
import { CardTransaction } from '../cards/entities.ts';
import { parameterValueProblem } from '../catalog/custom-parameters.ts';
import { CatalogSku, CustomParameter } from '../catalog/entities.ts';
import { findSkus } from '../catalog/service.ts';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inOrder } from '../db/json-order.ts';
import { inTransaction } from '../db/transaction.ts';
import { findSepaDebit, openMandateDebit } from '../sepa/debits.ts';
import { SepaMandate } from '../sepa/entities.ts';
import { mandateFor } from '../sepa/mandates.ts';
import { debitDetails, ecpAccountOf, type SepaDebitView } from '../sepa/presentation.ts';
import { Shopper, StoredCard } from '../shoppers/entities.ts';
import { cardResponse, findShopper, sepaDirectDebitInfo } from '../shoppers/service.ts';
import { Invoice, OrderItem, ShopperOrder } from './entities.ts';

/** A shopper's currency when it names none and no order says otherwise (batch orders began in euros). */
const defaultShopperCurrency = 'EUR';
/** What a statement shows when the order names no soft descriptor (ours). */
export const defaultSoftDescriptor = 'PAYWIRE';
/** Larger carts are refused before any arithmetic could leave the safe integers (ours). */
const maxOrderTotalMinor = 99_999_999_999;

const contactFields = [
  'title',
  'firstName',
  'lastName',
  'email',
  'companyName',
  'address1',
  'city',
  'zip',
  'country',
  'phone',
  'fax',
] as const satisfies ReadonlyArray<keyof ShopperContactInfo>;

/** Shipping and SEPA billing contacts have the same fields. */
const addressFields = ['firstName', 'lastName', 'address1', 'city', 'zip', 'country'] as const;

/** The shopper's contact in the documented element order; `address1` is the shopper's `address`. */
export function contactOf(shopper: Shopper): Partial<ShopperContactInfo> {
  const values: Record<(typeof contactFields)[number], string | null | undefined> = {
    title: shopper.title,
    firstName: shopper.firstName,
    lastName: shopper.lastName,
    email: shopper.email,
    companyName: shopper.companyName,
    address1: shopper.address,
    city: shopper.city,
    zip: shopper.zip,
    country: shopper.country,
    phone: shopper.phone,
    fax: shopper.fax,
  };
  return Object.fromEntries(contactFields.flatMap((name) => (values[name] ? [[name, values[name]]] : [])));
}

/** Links leave core as paths; the facade puts the public base URL in front. */
export const orderPath = (orderId: number) => `/services/2/orders/${orderId}`;

/** What pays an invoice: a batch order's debit (SEPA or ECP), or an Extended order's card sale. */
export type InvoicePayment =
  | { invoice: Invoice; debit: SepaDebitView; sale?: undefined }
  | { invoice: Invoice; sale: CardTransaction; debit?: undefined };

function financialTransaction(
  order: ShopperOrder,
  items: OrderItem[],
  { invoice, debit, sale }: InvoicePayment,
): FinancialTransaction {
  const facts = {
    tax: 0,
    taxRate: 0,
    softDescriptor: order.softDescriptor,
    targetBalance: 'PLIMUS_ACCOUNT' as const,
    invoiceContactInfo: inOrder(invoice.contact, contactFields),
    skus: [...new Set(items.map((item) => item.sku.id))].map((skuId) => ({ skuId })),
  };
  if (debit) {
    const shown = {
      ...facts,
      status: debit.status,
      dateDue: shortDate(debit.dueAt),
      dateCreated: shortDate(debit.createdAt),
      amount: minorToAmount(debit.amountMinor, debit.currency),
      currency: debit.currency,
    };
    return debit.ecp
      ? { ...shown, paymentMethod: 'ECP', ecp: debit.ecp }
      : {
          ...shown,
          paymentMethod: 'SEPA Direct Debit',
          paypalTransactionData: {},
          sepaDirectDebit: debitDetails(debit),
        };
  }
  const { authorizationCode } = sale.processing;
  return {
    ...facts,
    status: 'APPROVED',
    dateDue: shortDate(sale.authorizedAt),
    dateCreated: shortDate(sale.authorizedAt),
    amount: minorToAmount(sale.amountMinor, sale.currency),
    currency: sale.currency,
    paymentMethod: 'Credit Card',
    creditCard: chargedCard(sale),
    ...(authorizationCode ? { authorizationCode } : {}),
  };
}

/** The card a sale charged, as an order shows it. */
function chargedCard(sale: CardTransaction): CardFinancialTransaction['creditCard'] {
  const card = sale.card;
  if (!card) throw new Error(`order sale ${sale.id} has no vaulted card`); // orders charge vaulted cards only
  return { cardLastFourDigits: card.lastFour, cardType: card.brand as CardBrand };
}

export function presentOrder(order: ShopperOrder, items: OrderItem[], payments: InvoicePayment[]): Order {
  const total = minorToAmount(order.totalMinor, order.currency);
  const sale = payments.find((payment) => payment.sale)?.sale;
  return {
    orderId: order.id,
    ...(sale?.merchantTransactionId ? { sellerOrderId: sale.merchantTransactionId } : {}),
    ...(sale ? { softDescriptor: order.softDescriptor } : {}),
    orderingShopper: { shopperId: order.shopper.id, ...(sale ? { creditCard: chargedCard(sale) } : {}) },
    cart: {
      chargedCurrency: order.currency,
      cartItem: items.map((item) => ({
        sku: { skuId: item.sku.id, skuName: item.skuName },
        quantity: item.quantity,
        ...(item.skuParameters.length > 0 ? { skuParameter: item.skuParameters } : {}),
        itemSubTotal: minorToAmount(item.subTotalMinor, order.currency),
      })),
      tax: 0,
      taxRate: 0,
      totalCartCost: total,
    },
    postSaleInfo: {
      invoices: payments.map((payment) => ({
        invoiceId: payment.invoice.id,
        url: orderPath(order.id),
        financialTransactions: [financialTransaction(order, items, payment)],
      })),
    },
    fulfillment: { licenseKeys: [] },
  };
}

async function paymentOf(em: EntityManager, invoice: Invoice): Promise<InvoicePayment> {
  if (invoice.cardTransaction) {
    const sale = await em.findOneOrFail(CardTransaction, invoice.cardTransaction.id, { populate: ['card'] });
    return { invoice, sale };
  }
  return { invoice, debit: await debitOf(em, invoice) };
}

async function debitOf(em: EntityManager, invoice: Invoice): Promise<SepaDebitView> {
  const debit =
    invoice.sepaTransactionId == null
      ? null
      : await findSepaDebit(em, invoice.merchantId, invoice.sepaTransactionId);
  if (!debit) throw new Error(`invoice ${invoice.id} names no debit`); // an invariant, not input
  return debit;
}

/** The shopper in the batch order's shape: contact, invoice contact, payment accounts, store and locale. */
async function presentBatchShopper(em: EntityManager, shopper: Shopper): Promise<BatchShopper> {
  const contact = contactOf(shopper);
  const cards = await em.find(
    StoredCard,
    { shopper, merchantId: shopper.merchantId },
    { orderBy: { id: 'asc' } },
  );
  const mandates = await sepaDirectDebitInfo(em, shopper);
  const achAccounts = await em.find(
    SepaMandate,
    { shopper, merchantId: shopper.merchantId, scheme: 'ACH' },
    { orderBy: { id: 'asc' } },
  );
  // The billing contact sent with each account, kept on the invoices its debits paid.
  const billing = new Map<string, SepaBillingContact>();
  const invoices = await em.find(
    Invoice,
    { order: { shopper }, merchantId: shopper.merchantId, billingContact: { $ne: null } },
    { orderBy: { id: 'asc' } },
  );
  for (const invoice of invoices) {
    if (invoice.billingContact) {
      billing.set((await debitOf(em, invoice)).mandateId, inOrder(invoice.billingContact, addressFields));
    }
  }
  const shopperCurrency = shopper.shopperCurrency ?? defaultShopperCurrency;
  return {
    shopperInfo: {
      shopperId: shopper.id,
      shopperContactInfo: contact,
      shippingContactInfo: inOrder(contact, addressFields),
      invoiceContactsInfo: [{ default: true, ...contact }],
      paymentInfo: {
        creditCardsInfo: cards.map((card) => ({
          ...(card.billingContact
            ? { billingContactInfo: inOrder(card.billingContact, billingContactFields) }
            : {}),
          creditCard: cardResponse(card),
        })),
        ecpsInfo: achAccounts.flatMap((mandate) => {
          const ecp = ecpAccountOf(mandate);
          const billingContactInfo = billing.get(mandate.reference);
          return ecp ? [{ ...(billingContactInfo ? { billingContactInfo } : {}), ecp }] : [];
        }),
        sepaDirectDebitsInfo: mandates.map(({ sepaDirectDebit }) => {
          const billingContactInfo = billing.get(sepaDirectDebit.mandateId);
          return {
            ...(billingContactInfo ? { billingContactInfo } : {}),
            sepaDirectDebit: {
              ibanFirstFour: sepaDirectDebit.ibanFirstFour,
              ibanLastFour: sepaDirectDebit.ibanLastFour,
            },
          };
        }),
        balance: { currency: shopperCurrency, value: 0 },
      },
      ...(shopper.storeId ? { storeId: shopper.storeId } : {}),
      shopperCurrency,
      locale: shopper.locale ?? 'en',
    },
  };
}

function orderProblem(name: string, description: string, messageValue?: string): DomainError {
  return new DomainError('VALIDATION_GENERAL_FAILURE', `${name}: ${description}`, {
    name,
    ...(messageValue === undefined ? {} : { messageValue }),
  });
}

/**
 * A cart's custom parameter values checked against the merchant's active parameters (docs/conformance.md,
 * Extended API): each names one parameter by its title and fits its type, and every mandatory parameter is
 * given on every item. Answers each item's values under the parameters' titles as stored.
 */
async function cartParameterValues(
  em: EntityManager,
  merchantId: number,
  cart: ReadonlyArray<{ skuParameter?: SkuParameter[] | undefined }>,
  at: string,
): Promise<SkuParameter[][]> {
  const active = await em.find(CustomParameter, { merchantId, active: true }, { orderBy: { id: 'asc' } });
  return cart.map((item, index) => {
    const values = (item.skuParameter ?? []).map(({ paramName, paramValue }, position) => {
      const name = `${at}cart.cartItem.${index}.skuParameter.${position}`;
      const named = active.filter((parameter) => parameter.title.toLowerCase() === paramName.toLowerCase());
      const [parameter] = named;
      if (!parameter || named.length > 1)
        throw orderProblem(
          `${name}.paramName`,
          parameter
            ? 'names several active custom parameters; their titles must differ'
            : "names no active custom parameter of the merchant's",
          paramName,
        );
      const wrong = parameterValueProblem(parameter, paramValue);
      if (wrong) throw orderProblem(`${name}.paramValue`, `${wrong} (${parameter.title})`);
      return { paramName: parameter.title, paramValue };
    });
    const missing = active.find(
      (parameter) => parameter.mandatory && !values.some((value) => value.paramName === parameter.title),
    );
    if (missing)
      throw orderProblem(
        `${at}cart.cartItem.${index}.skuParameter`,
        `must give the mandatory custom parameter ${missing.title}`,
      );
    return values;
  });
}

/** A cart priced from the catalogue: each item's sku, sub-total and custom parameter values, and the total. */
export interface PricedCart {
  totalMinor: number;
  items: Array<{ sku: CatalogSku; quantity: number; subTotalMinor: number; skuParameters: SkuParameter[] }>;
}

/**
 * Prices a cart from the merchant's catalogue in the order's currency and checks it against the expected
 * total; `at` is where the order sits in the request (`order.` in a batch order), for the errors' names.
 * Every sku must be the merchant's and priced in that currency; `currencyRule` says why, when it is not. Each
 * item's custom parameter values must fit the merchant's parameters.
 */
export async function pricedCart(
  em: EntityManager,
  merchantId: number,
  order: {
    cart: {
      cartItem: Array<{
        sku: { skuId: number };
        quantity: number;
        skuParameter?: SkuParameter[] | undefined;
      }>;
    };
    expectedTotalPrice: { amount: string; currency: string };
  },
  { at = '', currencyRule }: { at?: string; currencyRule: string },
): Promise<PricedCart> {
  const { currency, amount: expected } = order.expectedTotalPrice;
  const cart = order.cart.cartItem;
  const skus = await findSkus(
    em,
    merchantId,
    cart.map((item) => item.sku.skuId),
  );
  const parameters = await cartParameterValues(em, merchantId, cart, at);
  let totalMinor = 0;
  const items = cart.map((item, index) => {
    const name = `${at}cart.cartItem.${index}.sku.skuId`;
    const { skuId } = item.sku;
    const sku = skus.get(skuId);
    if (!sku) throw orderProblem(name, `no sku ${skuId} in the merchant's catalogue`, String(skuId));
    if (sku.status !== 'A' || sku.product.status !== 'A')
      throw orderProblem(name, `sku ${skuId} or its product is not active`, String(skuId));
    requireQuantityPolicy(sku, item.quantity, `${at}cart.cartItem.${index}.quantity`);
    if (sku.currency !== currency)
      throw orderProblem(name, `sku ${sku.id} is priced in ${sku.currency}; ${currencyRule}`, String(skuId));
    const subTotalMinor = sku.priceMinor * item.quantity;
    totalMinor += subTotalMinor;
    if (totalMinor > maxOrderTotalMinor)
      throw orderProblem(
        `${at}cart`,
        `the cart totals more than ${minorToDecimal(maxOrderTotalMinor, currency)} ${currency}`,
      );
    return { sku, quantity: item.quantity, subTotalMinor, skuParameters: parameters[index] ?? [] };
  });
  if (toMinorUnits(expected, currency) !== totalMinor)
    throw orderProblem(
      `${at}expectedTotalPrice.amount`,
      `is ${expected} ${currency} but the cart totals ${minorToDecimal(totalMinor, currency)} ${currency}`,
      expected,
    );
  return { totalMinor, items };
}

/** A cart line's quantity as its sku's quantity policy allows: at least the minimum, exactly it if fixed. */
function requireQuantityPolicy(sku: CatalogSku, quantity: number, property: string): void {
  const { minimumQuantity, allowQuantityChange } = sku;
  if (allowQuantityChange ? quantity >= minimumQuantity : quantity === minimumQuantity) return;
  const rule = allowQuantityChange
    ? `at least ${minimumQuantity}`
    : `${minimumQuantity}, which sku ${sku.id} fixes`;
  throw orderProblem(property, `must be ${rule}`, String(quantity));
}

/** The order's item rows, one per priced cart line at its sku's price. */
export function orderItems(
  em: EntityManager,
  merchantId: number,
  order: ShopperOrder,
  priced: PricedCart['items'],
): OrderItem[] {
  return priced.map(({ sku, quantity, subTotalMinor, skuParameters }) =>
    em.create(OrderItem, {
      merchantId,
      order,
      sku: em.getReference(CatalogSku, sku.id),
      skuName: sku.name,
      quantity,
      unitMinor: sku.priceMinor,
      subTotalMinor,
      skuParameters,
    }),
  );
}

type BatchPaymentInfo = BatchOrderRequest['shopper']['shopperInfo']['paymentInfo'];

/** A batch order's new shopper, from its shopper-info (the order's currency unless it names its own). */
function newBatchShopper(
  em: EntityManager,
  merchantId: number,
  input: BatchOrderRequest['shopper'],
  currency: string,
): Shopper {
  const { shopperInfo, webInfo } = input;
  const contact = shopperInfo.shopperContactInfo;
  return em.create(Shopper, {
    merchantId,
    title: contact.title ?? null,
    firstName: contact.firstName,
    lastName: contact.lastName,
    email: contact.email,
    companyName: contact.companyName ?? null,
    address: contact.address1 ?? null,
    city: contact.city ?? null,
    zip: contact.zip ?? null,
    country: contact.country,
    phone: contact.phone ?? null,
    fax: contact.fax ?? null,
    storeId: shopperInfo.storeId ?? null,
    locale: shopperInfo.locale ?? null,
    shopperCurrency: shopperInfo.shopperCurrency ?? currency,
    webInfo,
  });
}

/**
 * The order's invoice, paid by a debit of the shopper's account, SEPA or ECP, for the order's total (the
 * account's billing contact names the payer, the shopper's contact when it names none).
 */
async function invoiceByDebit(
  ctx: MerchantContext,
  em: EntityManager,
  {
    shopper,
    order,
    paymentInfo,
    contact,
  }: { shopper: Shopper; order: ShopperOrder; paymentInfo: BatchPaymentInfo; contact: ShopperContactInfo },
  now: Date,
): Promise<InvoicePayment> {
  const sepa = paymentInfo.sepaDirectDebitsInfo?.[0];
  const ecp = paymentInfo.ecpsInfo?.[0];
  let mandate: SepaMandate;
  if (sepa) mandate = await mandateFor(ctx, em, shopper, sepa.sepaDirectDebit.iban, now);
  else if (ecp) mandate = await achMandate(ctx, em, shopper, ecp.ecp, now);
  else throw new Error('the contract requires one account');
  const billing = (sepa ?? ecp)?.billingContactInfo;
  const debit = await openMandateDebit(
    ctx,
    em,
    mandate,
    {
      shopper,
      payer: {
        firstName: billing?.firstName ?? contact.firstName,
        lastName: billing?.lastName ?? contact.lastName,
      },
      amountMinor: order.totalMinor,
    },
    now,
  );
  const invoice = em.create(Invoice, {
    merchantId: ctx.merchantId,
    order,
    sepaTransactionId: debit.transactionId,
    contact: contactOf(shopper),
    billingContact: billing ?? null,
  });
  return { invoice, debit };
}

/**
 * POST /batch/order-placement: the shopper, the order and its items, the invoice and the debit (SEPA or
 * ECP) that pays it commit in one transaction or not at all. The shopper and order rows are written first;
 * a bad cart item, a wrong expected total or a refused debit later in the command rolls all of it back.
 */
export async function placeBatchOrder(ctx: MerchantContext, input: BatchOrderRequest): Promise<BatchOrder> {
  return inTransaction(ctx.em, async (em) => {
    const now = await callNow(ctx, em);
    const { merchantId } = ctx;
    const { paymentInfo } = input.shopper.shopperInfo;
    const method = batchOrderMethod(paymentInfo);
    const { currency } = method;
    const shopper = newBatchShopper(em, merchantId, input.shopper, currency);
    const order = em.create(ShopperOrder, {
      merchantId,
      shopper,
      currency,
      totalMinor: 0,
      softDescriptor: input.order.softDescriptor ?? defaultSoftDescriptor,
      webInfo: input.order.orderingShopper.webInfo,
      placedAt: now,
    });
    await em.flush();

    const { totalMinor, items: priced } = await pricedCart(em, merchantId, input.order, {
      at: 'order.',
      currencyRule: `orders paid by ${method.name} take ${currency} skus only`,
    });
    const items = orderItems(em, merchantId, order, priced);
    order.totalMinor = totalMinor;
    const contact = input.shopper.shopperInfo.shopperContactInfo;
    const payment = await invoiceByDebit(ctx, em, { shopper, order, paymentInfo, contact }, now);
    await em.flush();
    return { shopper: await presentBatchShopper(em, shopper), order: presentOrder(order, items, [payment]) };
  });
}

async function findOrder(em: EntityManager, merchantId: number, orderId: number): Promise<ShopperOrder> {
  const order = await em.findOne(ShopperOrder, { id: orderId, merchantId });
  if (!order) throw new DomainError('RESOURCE_NOT_FOUND', `order ${orderId} was not found`);
  return order;
}

/** GET /orders/{id}: the order with its invoice, whose financial transaction shows its payment's status now. */
export async function getOrder(ctx: MerchantContext, orderId: number): Promise<Order> {
  const { em, merchantId } = ctx;
  const order = await findOrder(em, merchantId, orderId);
  const items = await em.find(OrderItem, { order, merchantId }, { orderBy: { id: 'asc' } });
  const invoices = await em.find(Invoice, { order, merchantId }, { orderBy: { id: 'asc' } });
  const payments = [];
  for (const invoice of invoices) payments.push(await paymentOf(em, invoice));
  return presentOrder(order, items, payments);
}

/** GET /shoppers/{id}: any of the merchant's shoppers, in the batch order's shopper shape. */
export async function getBatchShopper(ctx: MerchantContext, shopperId: number): Promise<BatchShopper> {
  return presentBatchShopper(ctx.em, await findShopper(ctx.em, ctx.merchantId, shopperId));
}
