import { describe, expect, it } from 'vitest';
import { createAltTransactionInput, ibanChecksumValid, ibanInput, sepaCountries } from './sepa.ts';
import { ValidationFailure, validate } from './validation.ts';

/** Published example IBANs of supported countries (ISO 13616 registry and the banks' own examples). */
const VALID = [
  'DE89370400440532013000',
  'DE62370400440532013001',
  'DE35370400440532013002',
  'FR1420041010050500013M02606',
  'NL91ABNA0417164300',
  'AT611904300234573201',
  'BE68539007547034',
  'ES9121000418450200051332',
  'IT60X0542811101000000123456',
  'FI2112345600000785',
  'IE29AIBK93115212345678',
  'MT84MALT011000012345MTLCAST001S',
];

const failureOf = (value: unknown) => {
  const result = ibanInput.safeParse(value);
  expect(result.success).toBe(false);
  return result.error?.issues[0]?.message ?? '';
};

const request = {
  sepaDirectDebitTransaction: { iban: 'DE89 3704 0044 0532 0130 00' },
  payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
  amount: '10.50',
  currency: 'EUR',
  authorizedByShopper: true,
};

describe('SEPA countries', () => {
  it('are the 21 countries the interface lists (docs/conformance.md)', () => {
    expect([...sepaCountries].sort()).toEqual(
      'AT BE CY DE EE ES FI FR GR IE IT LT LU LV MC MT NL PT SI SK SM'.split(' '),
    );
  });
});

describe('IBAN input', () => {
  it('accepts valid IBANs of supported countries', () => {
    for (const iban of VALID) expect(ibanInput.parse(iban), iban).toBe(iban);
  });

  it('removes spaces and upper-cases what shoppers type', () => {
    expect(ibanInput.parse(' de89 3704 0044 0532 0130 00 ')).toBe('DE89370400440532013000');
    expect(ibanInput.parse('fr14 2004 1010 0505 0001 3m02 606')).toBe('FR1420041010050500013M02606');
  });

  it('refuses a wrong length for the country', () => {
    expect(failureOf('DE8937040044053201300')).toBe('a DE IBAN has 22 characters, not 21');
    expect(failureOf('NL91ABNA04171643001')).toBe('a NL IBAN has 18 characters, not 19');
  });

  it('refuses a failed mod-97 check, including a swapped pair of digits', () => {
    expect(failureOf('DE88370400440532013000')).toBe('failed the IBAN mod-97 check');
    expect(failureOf('DE89370400440532010300')).toBe('failed the IBAN mod-97 check');
    expect(ibanChecksumValid('GB29NWBK60161331926819')).toBe(true);
    expect(ibanChecksumValid('GB28NWBK60161331926819')).toBe(false);
  });

  it('refuses countries outside SEPA direct debit, even with a valid IBAN', () => {
    expect(failureOf('GB29NWBK60161331926819')).toBe('country GB is not supported for SEPA direct debit');
    expect(failureOf('CH9300762011623852957')).toBe('country CH is not supported for SEPA direct debit');
  });

  it('refuses what is not an IBAN at all', () => {
    for (const value of ['', 'DE', '89DE370400440532013000', 'DE89-3704-0044', 'DE89370400440532013000!']) {
      expect(failureOf(value), value).toMatch(/must be an IBAN/);
    }
    expect(ibanInput.safeParse(12345).success).toBe(false);
  });
});

describe('alt-transaction request', () => {
  const failure = (input: unknown) => {
    try {
      validate(createAltTransactionInput, input);
    } catch (error) {
      if (error instanceof ValidationFailure) return error.messages;
      throw error;
    }
    throw new Error('expected a validation failure');
  };

  it('normalises a valid request', () => {
    const parsed = createAltTransactionInput.parse({ ...request, amount: 10.5, authorizedByShopper: 'true' });
    expect(parsed).toMatchObject({
      sepaDirectDebitTransaction: { iban: 'DE89370400440532013000' },
      amount: '10.5',
      currency: 'EUR',
      authorizedByShopper: true,
    });
  });

  it('names the IBAN property without echoing its value', () => {
    const [message] = failure({ ...request, sepaDirectDebitTransaction: { iban: 'NL91ABNA0417164301' } });
    expect(message).toMatchObject({
      code: 10001,
      invalidProperty: { name: 'sepaDirectDebitTransaction.iban' },
    });
    expect(message?.invalidProperty).not.toHaveProperty('messageValue');
    expect(JSON.stringify(message)).not.toContain('0417164301');
  });

  it('refuses other currencies, an unaccepted mandate, missing names and bad amounts', () => {
    expect(failure({ ...request, currency: 'USD' })[0]).toMatchObject({
      description: 'currency: EUR only',
      invalidProperty: { name: 'currency', messageValue: 'USD' },
    });
    expect(failure({ ...request, authorizedByShopper: false })[0]?.invalidProperty?.name).toBe(
      'authorizedByShopper',
    );
    expect(failure({ ...request, authorizedByShopper: undefined })[0]?.description).toBe(
      'authorizedByShopper: is required',
    );
    expect(failure({ ...request, payerInfo: { firstName: 'Ada' } })[0]?.invalidProperty?.name).toBe(
      'payerInfo.lastName',
    );
    expect(failure({ ...request, amount: '-1' })[0]?.invalidProperty?.name).toBe('amount');
    expect(failure({ ...request, amount: '10.505' })[0]).toMatchObject({ code: 14021 });
  });
});
