import { describe, expect, it } from 'vitest';
import { brandOf, isExpired, passesLuhn, securityCodeLength } from './cards.ts';

describe('Luhn', () => {
  it.each([
    '4263982640269299',
    '5425233430109903',
    '2222420000001113',
    '374245455400126',
    '6011000180331112',
    '3566000020000410',
    '4007702835532454',
  ])('accepts the sandbox card %s', (number) => {
    expect(passesLuhn(number)).toBe(true);
  });

  it('rejects a single changed digit, a transposition and non-digits', () => {
    expect(passesLuhn('4263982640269298')).toBe(false);
    expect(passesLuhn('4263982640269929')).toBe(false);
    expect(passesLuhn('4263 9826 4026 9299')).toBe(false);
    expect(passesLuhn('')).toBe(false);
  });
});

describe('brand from the number prefix', () => {
  it.each([
    ['4263982640269299', 'VISA'],
    ['5425233430109903', 'MASTERCARD'],
    ['2222420000001113', 'MASTERCARD'],
    ['2720990000000000', 'MASTERCARD'],
    ['374245455400126', 'AMEX'],
    ['6011000180331112', 'DISCOVER'],
    ['6221260000000000', 'DISCOVER'],
    ['6500000000000000', 'DISCOVER'],
    ['3566000020000410', 'JCB'],
    ['36000000000008', 'DINERS'],
    ['3000000000000004', 'DINERS'],
    ['6200000000000005', 'UNIONPAY'],
  ])('%s is %s', (number, brand) => {
    expect(brandOf(number)).toBe(brand);
  });

  it('knows no brand for other prefixes', () => {
    expect(brandOf('1234567812345670')).toBeUndefined();
    expect(brandOf('2721000000000000')).toBeUndefined();
  });

  it('wants four CVV digits for AMEX only', () => {
    expect(securityCodeLength('AMEX')).toBe(4);
    expect(securityCodeLength('VISA')).toBe(3);
    expect(securityCodeLength(undefined)).toBe(3);
  });
});

describe('expiry', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  it('keeps a card valid through its expiry month', () => {
    expect(isExpired(11, 2026, now)).toBe(false);
    expect(isExpired(12, 2026, now)).toBe(false);
    expect(isExpired(1, 2027, now)).toBe(false);
  });
  it('expires it after', () => {
    expect(isExpired(10, 2026, now)).toBe(true);
    expect(isExpired(12, 2025, now)).toBe(true);
  });
});
