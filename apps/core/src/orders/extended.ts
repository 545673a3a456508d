import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type CreateOrderRequest,
  DomainError,
  type ExtendedShopperRequest,
  minorToDecimal,
  type Order,
} from '@paywire/contracts';
import { CardTransaction } from '../cards/entities.ts';
import { runSale } from '../cards/sale.ts';
import type { MerchantContext } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { Shopper } from '../shoppers/entities.ts';
import { cardsMatching } from '../shoppers/queries.ts';
import { createShopper } from '../shoppers/service.ts';
import { Invoice, ShopperOrder } from './entities.ts';
import { contactOf, defaultSoftDescriptor, orderItems, presentOrder, pricedCart } from './service.ts';

/**
 * The Extended API's shoppers and orders (docs/conformance.md, Extended API). An Extended shopper is a
 * vaulted shopper with the batch order's contact columns; an order of one is paid by the sale of one of its
 * vaulted cards, through the card sale path like any other sale.
 */

/** POST /shoppers: the shopper, its cards vaulted, in one transaction; its id. */
export async function createExtendedShopper(
  ctx: MerchantContext,
  { webInfo, shopperInfo }: ExtendedShopperRequest,
): Promise<{ shopperId: number }> {
  const contact = shopperInfo.shopperContactInfo;
  const creditCardInfo = shopperInfo.paymentInfo?.creditCardsInfo;
  const shopper = await createShopper(
    ctx,
    {
      firstName: contact.firstName,
      lastName: contact.lastName,
      email: contact.email,
      companyName: contact.companyName,
      address: contact.address1,
      city: contact.city,
      zip: contact.zip,
      country: contact.country,
      phone: contact.phone,
      merchantShopperId: shopperInfo.sellerShopperId,
      softDescriptor: shopperInfo.softDescriptor,
      shopperCurrency: shopperInfo.shopperCurrency,
      ...(creditCardInfo ? { paymentSources: { creditCardInfo } } : {}),
    },
    {
      title: contact.title ?? null,
      fax: contact.fax ?? null,
      storeId: shopperInfo.storeId ?? null,
      locale: shopperInfo.locale ?? null,
      webInfo,
    },
  );
  return { shopperId: shopper.vaultedShopperId };
}

/** The vaulted card the order names by type and last four digits (the newest such), or undefined: the default. */
async function namedCard(em: EntityManager, shopperId: number, input: CreateOrderRequest) {
  const named = input.orderingShopper.creditCard;
  if (!named) return undefined;
  const rows = await executeParameterized<{ id: string }>(em, cardsMatching, [
    shopperId,
    named.cardType,
    named.cardLastFourDigits,
  ]);
  const ids = rows.map((row) => Number(row.id));
  if (ids.length === 0)
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      `orderingShopper.creditCard: the shopper has no ${named.cardType} card ending in ${named.cardLastFourDigits}`,
      { name: 'orderingShopper.creditCard', messageValue: `${named.cardType} ${named.cardLastFourDigits}` },
    );
  return Math.max(...ids);
}

/**
 * POST /orders: an order for an existing shopper. The shopper, its card and the cart are checked first;
 * then the card sale runs through the payment pipeline, and the order, its items and its invoice commit in
 * the sale's record transaction, so a declined sale (14002) leaves no order.
 */
export async function placeOrder(ctx: MerchantContext, input: CreateOrderRequest): Promise<Order> {
  const { em, merchantId } = ctx;
  const { shopperId, webInfo } = input.orderingShopper;
  const shopper = await em.findOne(Shopper, { id: shopperId, merchantId, deletedAt: null });
  if (!shopper)
    throw new DomainError('SHOPPER_NOT_FOUND', `shopper ${shopperId} was not found`, {
      name: 'orderingShopper.shopperId',
      messageValue: String(shopperId),
    });
  const cardId = await namedCard(em, shopperId, input);
  const { currency } = input.expectedTotalPrice;
  const { totalMinor, items } = await pricedCart(em, merchantId, input, {
    currencyRule: `the expected total is in ${currency}`,
  });
  const softDescriptor = input.softDescriptor ?? shopper.softDescriptor ?? defaultSoftDescriptor;
  const securityCode = input.orderingShopper.creditCard?.securityCode;
  return runSale(
    ctx,
    {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: minorToDecimal(totalMinor, currency),
      currency,
      vaultedShopperId: shopperId,
      softDescriptor,
      transactionFraudInfo: { shopperIpAddress: webInfo.ip },
      ...(input.sellerOrderId ? { merchantTransactionId: input.sellerOrderId } : {}),
    },
    { ...(cardId === undefined ? {} : { cardId }), ...(securityCode ? { securityCode } : {}) },
    async (tx, sale) => {
      const order = tx.create(ShopperOrder, {
        merchantId,
        shopper: tx.getReference(Shopper, shopperId),
        currency,
        totalMinor,
        softDescriptor,
        webInfo,
        placedAt: (await tx.findOneOrFail(CardTransaction, sale.transactionId)).authorizedAt,
      });
      const rows = orderItems(tx, merchantId, order, items);
      const invoice = tx.create(Invoice, {
        merchantId,
        order,
        sepaTransactionId: null,
        cardTransaction: tx.getReference(CardTransaction, sale.transactionId),
        contact: contactOf(shopper),
        billingContact: null,
      });
      await tx.flush();
      const charged = await tx.findOneOrFail(CardTransaction, sale.transactionId, { populate: ['card'] });
      return presentOrder(order, rows, [{ invoice, sale: charged }]);
    },
  );
}
