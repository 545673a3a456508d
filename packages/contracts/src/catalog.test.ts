import { describe, expect, it } from 'vitest';
import { createProductInput, createSkuInput, productIdInput, updateSkuInput } from './catalog.ts';
import { ValidationFailure, validate } from './validation.ts';

const product = { productName: 'E-book bundle', productShortDescription: 'Three e-books' };
const sku = {
  productId: '1000001',
  skuType: 'digital',
  pricingSettings: {
    chargePolicyType: 'one time payment',
    chargePolicy: {
      oneTimeCharge: { catalogPrices: [{ basePrice: 'true', currency: 'EUR', amount: '009.90' }] },
    },
  },
};

function problems(
  schema: Parameters<typeof validate>[0],
  input: unknown,
): Array<[string | undefined, string, number]> {
  try {
    validate(schema, input);
  } catch (error) {
    if (!(error instanceof ValidationFailure)) throw error;
    return error.messages.map((m) => [m.invalidProperty?.name, m.description, m.code]);
  }
  throw new Error('expected a validation failure');
}

describe('catalogue product contract', () => {
  it('trims the fields, reads the status in any case; the output validates again unchanged', () => {
    const parsed = validate(createProductInput, {
      ...product,
      productName: '  E-book bundle ',
      productStatus: 'i',
    });
    expect(parsed).toEqual({ ...product, productStatus: 'I' });
    expect(validate(createProductInput, parsed)).toEqual(parsed);
    // an element answered empty (unset) and sent back is unset again
    expect(validate(createProductInput, { ...product, productImage: '', productSupportEmail: ' ' })).toEqual(
      product,
    );
  });

  it('requires a bounded name and a short description; checks the status, descriptor and email', () => {
    expect(problems(createProductInput, { productShortDescription: 'S' })).toEqual([
      ['productName', 'productName: is required', 10001],
    ]);
    expect(problems(createProductInput, { productName: 'P' })[0]?.[0]).toBe('productShortDescription');
    expect(problems(createProductInput, { ...product, productName: 'x'.repeat(101) })[0]?.[1]).toBe(
      'productName: must be at most 100 characters',
    );
    expect(problems(createProductInput, { ...product, productStatus: 'D' })[0]?.[0]).toBe('productStatus');
    expect(
      problems(createProductInput, { ...product, productMerchantDescriptor: 'd'.repeat(21) })[0]?.[0],
    ).toBe('productMerchantDescriptor');
    expect(problems(createProductInput, { ...product, productSupportEmail: 'x' })[0]?.[0]).toBe(
      'productSupportEmail',
    );
  });

  it('takes product ids as positive integers, from a path segment or a number', () => {
    expect(validate(productIdInput, { productId: '1000001' })).toEqual({ productId: 1000001 });
    expect(() => validate(productIdInput, { productId: 'abc' })).toThrow(ValidationFailure);
    expect(() => validate(productIdInput, { productId: 0 })).toThrow(ValidationFailure);
  });
});

describe('catalogue sku contract', () => {
  it('normalises the product id, type, policy type, base price and amount', () => {
    expect(validate(createSkuInput, sku)).toEqual({
      productId: 1000001,
      skuType: 'DIGITAL',
      pricingSettings: {
        chargePolicyType: 'ONE TIME PAYMENT',
        chargePolicy: {
          oneTimeCharge: { catalogPrices: [{ basePrice: true, currency: 'EUR', amount: '9.90' }] },
        },
      },
    });
    expect(validate(updateSkuInput, { ...sku, skuId: '2000001' }).skuId).toBe(2000001);
  });

  it('prices a one-time charge once, in one currency, with its fraction digits', () => {
    const withPrices = (catalogPrices: unknown[]) => ({
      ...sku,
      pricingSettings: { ...sku.pricingSettings, chargePolicy: { oneTimeCharge: { catalogPrices } } },
    });
    const at = 'pricingSettings.chargePolicy.oneTimeCharge.catalogPrices';
    expect(problems(createSkuInput, withPrices([]))[0]?.[0]).toBe(at);
    expect(
      problems(
        createSkuInput,
        withPrices([
          { currency: 'EUR', amount: 1 },
          { currency: 'USD', amount: 1 },
        ]),
      )[0]?.[0],
    ).toBe(at);
    expect(problems(createSkuInput, withPrices([{ currency: 'EUR', amount: '1.001' }]))[0]).toEqual([
      `${at}.0.amount`,
      `${at}.0.amount: EUR amounts allow at most 2 fraction digits`,
      14021,
    ]);
    expect(
      problems(createSkuInput, withPrices([{ basePrice: false, currency: 'EUR', amount: 1 }]))[0]?.[0],
    ).toBe(`${at}.0.basePrice`);
    expect(
      problems(createSkuInput, {
        ...sku,
        pricingSettings: { ...sku.pricingSettings, chargePolicyType: 'RECURRING' },
      })[0]?.[0],
    ).toBe('pricingSettings.chargePolicyType');
  });

  it("refuses by name the original's settings Paywire does not act on, rather than ignoring them", () => {
    for (const [key, value] of [
      ['skuEffectiveDates', { effectiveFrom: '01-Jan-27' }],
      ['skuCouponSettings', {}],
      ['skuCustomParameters', { skuCustomParameter: [] }],
    ] as const) {
      const [problem] = problems(createSkuInput, { ...sku, [key]: value });
      expect(problem?.[0]).toBe(key);
      expect(problem?.[1]).toContain('is not supported by Paywire');
    }
  });
});
