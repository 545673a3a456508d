import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type BatchOrder,
  type BatchOrderRequest,
  type BatchShopper,
  billingContactFields,
  DomainError,
  type FinancialTransaction,
  minorToAmount,
  minorToDecimal,
  type Order,
  type SepaBillingContact,
  type ShopperContactInfo,
  shortDate,
  toMinorUnits,
} from '@paywire/contracts';
import { findSkus } from '../catalog/service.ts';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inOrder } from '../db/json-order.ts';
import { inTransaction } from '../db/transaction.ts';
import { debitDetails, findSepaDebit, openSepaDebit, type SepaDebitView } from '../sepa/service.ts';
import { Shopper, StoredCard } from '../shoppers/entities.ts';
import { cardResponse, findShopper, sepaDirectDebitInfo } from '../shoppers/service.ts';
import { Invoice, OrderItem, ShopperOrder } from './entities.ts';

/** Orders are paid by SEPA direct debit, which is in euros only. */
const currency = 'EUR';
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
function contactOf(shopper: Shopper): Partial<ShopperContactInfo> {
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

function financialTransaction(
  order: ShopperOrder,
  invoice: Invoice,
  items: OrderItem[],
  debit: SepaDebitView,
): FinancialTransaction {
  return {
    status: debit.status,
    dateDue: shortDate(debit.dueAt),
    dateCreated: shortDate(debit.createdAt),
    amount: minorToAmount(debit.amountMinor, debit.currency),
    tax: 0,
    taxRate: 0,
    currency: 'EUR', // orders are paid by SEPA direct debit only
    softDescriptor: order.softDescriptor,
    paymentMethod: 'SEPA Direct Debit',
    targetBalance: 'PLIMUS_ACCOUNT',
    paypalTransactionData: {},
    sepaDirectDebit: debitDetails(debit),
    invoiceContactInfo: inOrder(invoice.contact, contactFields),
    skus: [...new Set(items.map((item) => item.sku.id))].map((skuId) => ({ skuId })),
  };
}

function presentOrder(
  order: ShopperOrder,
  items: OrderItem[],
  invoices: Array<{ invoice: Invoice; debit: SepaDebitView }>,
): Order {
  const total = minorToAmount(order.totalMinor, currency);
  return {
    orderId: order.id,
    orderingShopper: { shopperId: order.shopper.id },
    cart: {
      chargedCurrency: currency,
      cartItem: items.map((item) => ({
        sku: { skuId: item.sku.id, skuName: item.skuName },
        quantity: item.quantity,
        itemSubTotal: minorToAmount(item.subTotalMinor, currency),
      })),
      tax: 0,
      taxRate: 0,
      totalCartCost: total,
    },
    postSaleInfo: {
      invoices: invoices.map(({ invoice, debit }) => ({
        invoiceId: invoice.id,
        url: orderPath(order.id),
        financialTransactions: [financialTransaction(order, invoice, items, debit)],
      })),
    },
    fulfillment: { licenseKeys: [] },
  };
}

async function debitOf(em: EntityManager, invoice: Invoice): Promise<SepaDebitView> {
  const debit = await findSepaDebit(em, invoice.merchantId, invoice.sepaTransactionId);
  if (!debit) throw new Error(`invoice ${invoice.id} names no SEPA debit`); // an invariant, not input
  return debit;
}

/** The shopper in the batch order's shape: contact, invoice contact, payment accounts, store and locale. */
async function presentShopper(em: EntityManager, shopper: Shopper): Promise<BatchShopper> {
  const contact = contactOf(shopper);
  const cards = await em.find(
    StoredCard,
    { shopper, merchantId: shopper.merchantId },
    { orderBy: { id: 'asc' } },
  );
  const mandates = await sepaDirectDebitInfo(em, shopper);
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
  const shopperCurrency = shopper.shopperCurrency ?? currency;
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
        ecpsInfo: [],
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
        balance: { amount: 0, currency: shopperCurrency },
      },
      ...(shopper.storeId ? { storeId: shopper.storeId } : {}),
      shopperCurrency,
      locale: shopper.locale ?? 'en',
    },
  };
}

function cartItemProblem(index: number, skuId: number, description: string): DomainError {
  const name = `order.cart.cartItem.${index}.sku.skuId`;
  return new DomainError('VALIDATION_GENERAL_FAILURE', `${name}: ${description}`, {
    name,
    messageValue: String(skuId),
  });
}

/**
 * POST /batch/order-placement: the shopper, the order and its items, the invoice and the SEPA debit that
 * pays it commit in one transaction or not at all. The shopper and order rows are written first; a bad
 * cart item, a wrong expected total or a refused debit later in the command rolls all of it back.
 */
export async function placeBatchOrder(ctx: MerchantContext, input: BatchOrderRequest): Promise<BatchOrder> {
  return inTransaction(ctx.em, async (em) => {
    const now = await callNow(ctx, em);
    const { merchantId } = ctx;
    const { shopperInfo, webInfo } = input.shopper;
    const contact = shopperInfo.shopperContactInfo;
    const shopper = em.create(Shopper, {
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

    const cart = input.order.cart.cartItem;
    const skus = await findSkus(
      em,
      merchantId,
      cart.map((item) => item.sku.skuId),
    );
    let totalMinor = 0;
    const items = cart.map((item, index) => {
      const sku = skus.get(item.sku.skuId);
      if (!sku) {
        throw cartItemProblem(index, item.sku.skuId, `no sku ${item.sku.skuId} in the merchant's catalogue`);
      }
      if (sku.currency !== currency) {
        throw cartItemProblem(
          index,
          item.sku.skuId,
          `sku ${sku.id} is priced in ${sku.currency}; orders paid by SEPA direct debit take EUR skus only`,
        );
      }
      const subTotalMinor = sku.priceMinor * item.quantity;
      totalMinor += subTotalMinor;
      if (totalMinor > maxOrderTotalMinor) {
        throw new DomainError(
          'VALIDATION_GENERAL_FAILURE',
          `order.cart: the cart totals more than ${minorToDecimal(maxOrderTotalMinor, currency)} EUR`,
          { name: 'order.cart' },
        );
      }
      return em.create(OrderItem, {
        merchantId,
        order,
        sku,
        skuName: sku.name,
        quantity: item.quantity,
        unitMinor: sku.priceMinor,
        subTotalMinor,
      });
    });

    const expected = input.order.expectedTotalPrice;
    if (toMinorUnits(expected.amount, currency) !== totalMinor) {
      throw new DomainError(
        'VALIDATION_GENERAL_FAILURE',
        `order.expectedTotalPrice.amount: is ${expected.amount} EUR but the cart totals ` +
          `${minorToDecimal(totalMinor, currency)} EUR`,
        { name: 'order.expectedTotalPrice.amount', messageValue: expected.amount },
      );
    }
    order.totalMinor = totalMinor;

    const account = shopperInfo.paymentInfo.sepaDirectDebitsInfo[0];
    if (!account) throw new Error('the contract requires one sepa-direct-debit-info');
    const billing = account.billingContactInfo;
    const debit = await openSepaDebit(
      ctx,
      em,
      {
        shopper,
        iban: account.sepaDirectDebit.iban,
        payer: {
          firstName: billing?.firstName ?? contact.firstName,
          lastName: billing?.lastName ?? contact.lastName,
        },
        amountMinor: totalMinor,
        currency,
      },
      now,
    );
    const invoice = em.create(Invoice, {
      merchantId,
      order,
      sepaTransactionId: debit.transactionId,
      contact: contactOf(shopper),
      billingContact: billing ?? null,
    });
    await em.flush();
    return {
      shopper: await presentShopper(em, shopper),
      order: presentOrder(order, items, [{ invoice, debit }]),
    };
  });
}

async function findOrder(em: EntityManager, merchantId: number, orderId: number): Promise<ShopperOrder> {
  const order = await em.findOne(ShopperOrder, { id: orderId, merchantId });
  if (!order) throw new DomainError('RESOURCE_NOT_FOUND', `order ${orderId} was not found`);
  return order;
}

/** GET /orders/{id}: the order with its invoice, whose financial transaction shows the debit's status now. */
export async function getOrder(ctx: MerchantContext, orderId: number): Promise<Order> {
  const { em, merchantId } = ctx;
  const order = await findOrder(em, merchantId, orderId);
  const items = await em.find(OrderItem, { order, merchantId }, { orderBy: { id: 'asc' } });
  const invoices = await em.find(Invoice, { order, merchantId }, { orderBy: { id: 'asc' } });
  const withDebits = [];
  for (const invoice of invoices) withDebits.push({ invoice, debit: await debitOf(em, invoice) });
  return presentOrder(order, items, withDebits);
}

/** GET /shoppers/{id}: any of the merchant's shoppers, in the batch order's shopper shape. */
export async function getBatchShopper(ctx: MerchantContext, shopperId: number): Promise<BatchShopper> {
  return presentShopper(ctx.em, await findShopper(ctx.em, ctx.merchantId, shopperId));
}
