import { describe, expect, it } from 'vitest';
import { batchOrderInput, maxCartItems, maxQuantity, orderIdInput } from './orders.ts';
import { ValidationFailure, validate } from './validation.ts';

const webInfo = { ip: '62.219.121.253', remoteHost: 'www.example.com', userAgent: 'Mozilla/5.0' };

function batch(order: Record<string, unknown> = {}, shopperInfo: Record<string, unknown> = {}) {
  return {
    shopper: {
      webInfo,
      shopperInfo: {
        storeId: '12345',
        locale: 'en',
        shopperContactInfo: {
          title: 'Ms',
          firstName: 'Jane',
          lastName: 'Doe',
          email: 'jane@example.com',
          address1: '1 Main St',
          city: 'Berlin',
          zip: '10115',
          country: 'de',
          phone: '+49301234567',
        },
        paymentInfo: {
          sepaDirectDebitsInfo: [
            {
              billingContactInfo: { firstName: 'Jane', lastName: 'Doe', country: 'DE' },
              sepaDirectDebit: { iban: 'de89 3704 0044 0532 0130 00' },
            },
          ],
        },
        ...shopperInfo,
      },
    },
    order: {
      orderingShopper: { webInfo, authorizedByShopper: 'true' },
      cart: { cartItem: [{ sku: { skuId: '2000001' }, quantity: '2' }] },
      expectedTotalPrice: { amount: '20.00', currency: 'EUR' },
      ...order,
    },
  };
}

function problems(input: unknown): Array<[string | undefined, string, number]> {
  try {
    validate(batchOrderInput, input);
  } catch (error) {
    if (!(error instanceof ValidationFailure)) throw error;
    return error.messages.map((m) => [m.invalidProperty?.name, m.description, m.code]);
  }
  throw new Error('expected a validation failure');
}

describe('batch order contract', () => {
  it('reads XML-style strings: ids, quantities, booleans; normalises the IBAN and the country', () => {
    const parsed = validate(batchOrderInput, batch());
    expect(parsed.order.cart.cartItem).toEqual([{ sku: { skuId: 2000001 }, quantity: 2 }]);
    expect(parsed.order.orderingShopper.authorizedByShopper).toBe(true);
    expect(parsed.order.expectedTotalPrice).toEqual({ amount: '20.00', currency: 'EUR' });
    const [account] = parsed.shopper.shopperInfo.paymentInfo.sepaDirectDebitsInfo ?? [];
    expect(account?.sepaDirectDebit.iban).toBe('DE89370400440532013000');
    expect(parsed.shopper.shopperInfo.shopperContactInfo.country).toBe('DE');
    expect(validate(batchOrderInput, parsed)).toEqual(parsed); // core validates the facade's output again
  });

  it('requires the shopper to accept the mandate', () => {
    const refused = batch({ orderingShopper: { webInfo, authorizedByShopper: false } });
    expect(problems(refused)).toEqual([
      [
        'order.orderingShopper.authorizedByShopper',
        'order.orderingShopper.authorizedByShopper: must be true: the shopper has to authorize the debit of the account',
        10001,
      ],
    ]);
    expect(problems(batch({ orderingShopper: { webInfo } }))[0]?.[1]).toBe(
      'order.orderingShopper.authorizedByShopper: is required',
    );
  });

  it('takes EUR only for SEPA (USD only for ECP), with at most two decimals', () => {
    expect(problems(batch({ expectedTotalPrice: { amount: '20.00', currency: 'USD' } }))).toEqual([
      [
        'order.expectedTotalPrice.currency',
        'order.expectedTotalPrice.currency: EUR only: an order paid by SEPA direct debit is in EUR',
        10001,
      ],
    ]);
    expect(problems(batch({ expectedTotalPrice: { amount: '20.001', currency: 'EUR' } }))[0]).toEqual([
      'order.expectedTotalPrice.amount',
      'order.expectedTotalPrice.amount: EUR amounts allow at most 2 fraction digits',
      14021,
    ]);
  });

  it('names an invalid IBAN by its path', () => {
    const badIban = batch(
      {},
      { paymentInfo: { sepaDirectDebitsInfo: [{ sepaDirectDebit: { iban: 'DE89370400440532013001' } }] } },
    );
    expect(problems(badIban)).toEqual([
      [
        'shopper.shopperInfo.paymentInfo.sepaDirectDebitsInfo.0.sepaDirectDebit.iban',
        'shopper.shopperInfo.paymentInfo.sepaDirectDebitsInfo.0.sepaDirectDebit.iban: failed the IBAN mod-97 check',
        10001,
      ],
    ]);
    const twoAccounts = batch(
      {},
      {
        paymentInfo: {
          sepaDirectDebitsInfo: [
            { sepaDirectDebit: { iban: 'DE89370400440532013000' } },
            { sepaDirectDebit: { iban: 'DE89370400440532013000' } },
          ],
        },
      },
    );
    expect(problems(twoAccounts)[0]?.[0]).toBe('shopper.shopperInfo.paymentInfo.sepaDirectDebitsInfo');
  });

  it('bounds the cart: at least one item, quantities from 1 to 9999, skus by positive id', () => {
    expect(problems(batch({ cart: { cartItem: [] } }))[0]?.[0]).toBe('order.cart.cartItem');
    const many = Array.from({ length: maxCartItems + 1 }, () => ({ sku: { skuId: 1 }, quantity: 1 }));
    expect(problems(batch({ cart: { cartItem: many } }))[0]?.[0]).toBe('order.cart.cartItem');
    expect(problems(batch({ cart: { cartItem: [{ sku: { skuId: 1 }, quantity: 0 }] } }))[0]?.[0]).toBe(
      'order.cart.cartItem.0.quantity',
    );
    expect(
      problems(batch({ cart: { cartItem: [{ sku: { skuId: 1 }, quantity: maxQuantity + 1 }] } }))[0]?.[1],
    ).toBe(`order.cart.cartItem.0.quantity: must be at most ${maxQuantity}`);
    expect(problems(batch({ cart: { cartItem: [{ sku: { skuId: 'x' }, quantity: 1 }] } }))[0]?.[0]).toBe(
      'order.cart.cartItem.0.sku.skuId',
    );
  });

  it('checks the shopper: names, email, country, web-info ip, locale', () => {
    const contact = batch().shopper.shopperInfo.shopperContactInfo;
    const withContact = (overrides: Record<string, unknown>) =>
      batch({}, { shopperContactInfo: { ...contact, ...overrides } });
    const prefix = 'shopper.shopperInfo.shopperContactInfo';
    expect(problems(withContact({ firstName: undefined }))[0]?.[1]).toBe(`${prefix}.firstName: is required`);
    expect(problems(withContact({ email: 'not-an-email' }))[0]?.[0]).toBe(`${prefix}.email`);
    expect(problems(withContact({ country: 'DEU' }))[0]?.[1]).toBe(
      `${prefix}.country: must be a two-letter country code`,
    );
    expect(problems(withContact({ title: 't'.repeat(21) }))[0]?.[0]).toBe(`${prefix}.title`);
    expect(problems(batch({}, { locale: 'english!' }))[0]?.[0]).toBe('shopper.shopperInfo.locale');
    const badIp = { ...batch(), shopper: { ...batch().shopper, webInfo: { ip: '999.1.1.1' } } };
    expect(problems(badIp)[0]).toEqual([
      'shopper.webInfo.ip',
      'shopper.webInfo.ip: must be an IPv4 or IPv6 address',
      10001,
    ]);
    const ipv6 = { ...batch(), shopper: { ...batch().shopper, webInfo: { ip: '2001:db8::1' } } };
    expect(validate(batchOrderInput, ipv6).shopper.webInfo.ip).toBe('2001:db8::1');
  });

  it('takes order ids as positive integers', () => {
    expect(validate(orderIdInput, { orderId: '30000001' })).toEqual({ orderId: 30000001 });
    expect(() => validate(orderIdInput, { orderId: '-1' })).toThrow(ValidationFailure);
  });
});
