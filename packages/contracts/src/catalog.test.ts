import { describe, expect, it } from 'vitest';
import { createProductInput, maxSkusPerProduct, productIdInput } from './catalog.ts';
import { ValidationFailure, validate } from './validation.ts';

const product = {
  productName: 'E-book bundle',
  skus: [
    { skuName: 'Single', price: { amount: '9.99', currency: 'EUR' } },
    { skuName: 'Yen', price: { amount: 1000, currency: 'JPY' } },
  ],
};

function problems(input: unknown): Array<[string | undefined, string, number]> {
  try {
    validate(createProductInput, input);
  } catch (error) {
    if (!(error instanceof ValidationFailure)) throw error;
    return error.messages.map((m) => [m.invalidProperty?.name, m.description, m.code]);
  }
  throw new Error('expected a validation failure');
}

describe('catalogue product contract', () => {
  it('normalises names and amounts; the output validates again unchanged', () => {
    const parsed = validate(createProductInput, {
      ...product,
      productName: '  E-book bundle ',
      skus: [{ skuName: ' Single ', price: { amount: '009.90', currency: 'EUR' } }],
    });
    expect(parsed).toEqual({
      productName: 'E-book bundle',
      skus: [{ skuName: 'Single', price: { amount: '9.90', currency: 'EUR' } }],
    });
    expect(validate(createProductInput, parsed)).toEqual(parsed);
    expect(validate(createProductInput, product).skus[1]?.price.amount).toBe('1000');
  });

  it('requires a bounded product name and at least one, at most 50 skus', () => {
    expect(problems({ skus: product.skus })).toEqual([['productName', 'productName: is required', 10001]]);
    expect(problems({ ...product, productName: ' ' })[0]?.[1]).toBe('productName: must not be empty');
    expect(problems({ ...product, productName: 'x'.repeat(101) })[0]?.[1]).toBe(
      'productName: must be at most 100 characters',
    );
    expect(problems({ ...product, skus: [] })).toEqual([['skus', 'skus: must hold at least one sku', 10001]]);
    const many = Array.from({ length: maxSkusPerProduct + 1 }, (_, i) => ({
      skuName: `sku ${i}`,
      price: { amount: 1, currency: 'EUR' },
    }));
    expect(problems({ ...product, skus: many })[0]?.[0]).toBe('skus');
    expect(problems({ productName: 'p' })[0]?.[1]).toBe('skus: is required');
  });

  it('checks every sku: name, amount, currency, fraction digits, duplicates', () => {
    const sku = (overrides: Record<string, unknown>) => ({
      ...product,
      skus: [{ skuName: 'A', price: { amount: '1.00', currency: 'EUR' }, ...overrides }],
    });
    expect(problems(sku({ skuName: '' }))[0]?.[0]).toBe('skus.0.skuName');
    expect(problems(sku({ skuName: 'n'.repeat(101) }))[0]?.[0]).toBe('skus.0.skuName');
    expect(problems(sku({ price: { amount: '0', currency: 'EUR' } }))[0]).toEqual([
      'skus.0.price.amount',
      'skus.0.price.amount: must be a positive decimal amount',
      10001,
    ]);
    expect(problems(sku({ price: { amount: '-1', currency: 'EUR' } }))[0]?.[0]).toBe('skus.0.price.amount');
    expect(problems(sku({ price: { amount: 'ten', currency: 'EUR' } }))[0]?.[0]).toBe('skus.0.price.amount');
    expect(problems(sku({ price: { amount: '1.00', currency: 'XXX' } }))[0]).toEqual([
      'skus.0.price.currency',
      'skus.0.price.currency: must be a supported ISO 4217 currency code',
      10001,
    ]);
    expect(problems(sku({ price: { amount: '1.001', currency: 'EUR' } }))[0]).toEqual([
      'skus.0.price.amount',
      'skus.0.price.amount: EUR amounts allow at most 2 fraction digits',
      14021,
    ]);
    expect(problems(sku({ price: { amount: '100.5', currency: 'JPY' } }))[0]?.[2]).toBe(14021);
    expect(problems(sku({ price: undefined }))[0]?.[1]).toBe('skus.0.price: is required');
    expect(
      problems({
        ...product,
        skus: [product.skus[0], { skuName: 'SINGLE', price: { amount: 2, currency: 'EUR' } }],
      }),
    ).toEqual([
      ['skus.1.skuName', 'skus.1.skuName: is already the name of another sku of this product', 10001],
    ]);
  });

  it('takes product ids as positive integers, from a path segment or a number', () => {
    expect(validate(productIdInput, { productId: '1000001' })).toEqual({ productId: 1000001 });
    expect(() => validate(productIdInput, { productId: 'abc' })).toThrow(ValidationFailure);
    expect(() => validate(productIdInput, { productId: 0 })).toThrow(ValidationFailure);
  });
});
