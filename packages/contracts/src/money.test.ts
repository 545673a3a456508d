import { describe, expect, it } from 'vitest';
import {
  currencyExponent,
  fractionDigits,
  isCurrency,
  minorToAmount,
  minorToDecimal,
  toMinorUnits,
} from './money.ts';

describe('currency exponents', () => {
  it('knows zero-, two- and three-decimal currencies', () => {
    expect(currencyExponent('JPY')).toBe(0);
    expect(currencyExponent('EUR')).toBe(2);
    expect(currencyExponent('KWD')).toBe(3);
  });
  it('rejects unknown codes', () => {
    expect(isCurrency('ABC')).toBe(false);
    expect(isCurrency('usd')).toBe(false);
    expect(() => currencyExponent('ABC')).toThrow(RangeError);
  });
});

describe('minor units', () => {
  it('converts decimal text exactly, without floats', () => {
    expect(toMinorUnits('10.5', 'EUR')).toBe(1050);
    expect(toMinorUnits('0.29', 'USD')).toBe(29);
    expect(toMinorUnits('1234567890.99', 'USD')).toBe(123456789099);
    expect(toMinorUnits('1000', 'JPY')).toBe(1000);
    expect(toMinorUnits('1.234', 'KWD')).toBe(1234);
  });
  it('refuses more fraction digits than the currency has', () => {
    expect(() => toMinorUnits('1.5', 'JPY')).toThrow(RangeError);
    expect(() => toMinorUnits('1.001', 'USD')).toThrow(RangeError);
  });
  it('renders minor units back as exact decimal text and numbers', () => {
    expect(minorToDecimal(1050, 'EUR')).toBe('10.50');
    expect(minorToDecimal(5, 'USD')).toBe('0.05');
    expect(minorToDecimal(1000, 'JPY')).toBe('1000');
    expect(minorToDecimal(1, 'KWD')).toBe('0.001');
    expect(minorToAmount(29, 'USD')).toBe(0.29);
    expect(minorToAmount(123456789099, 'USD')).toBe(1234567890.99);
  });
  it('counts fraction digits of canonical text', () => {
    expect(fractionDigits('10')).toBe(0);
    expect(fractionDigits('10.5')).toBe(1);
    expect(fractionDigits('10.500')).toBe(3);
  });
});
