import { describe, expect, it } from 'vitest';
import { durationSeconds } from './clock.ts';
import { DomainError } from './errors.ts';
import { checkTransactionType, createTransactionInput } from './transactions.ts';
import { assertSafeInput, MAX_INPUT_DEPTH, ValidationFailure, validate } from './validation.ts';

const card = {
  cardNumber: '4263982640269299',
  securityCode: '837',
  expirationMonth: '2',
  expirationYear: 2031,
};
const sale = { cardTransactionType: 'AUTH_CAPTURE', amount: '010.50', currency: 'USD', creditCard: card };

function failure(input: unknown): ValidationFailure {
  try {
    validate(createTransactionInput, input);
  } catch (error) {
    if (error instanceof ValidationFailure) return error;
    throw error;
  }
  throw new Error('expected a validation failure');
}

describe('card transaction contract', () => {
  it('normalises lenient inputs: numeric strings, numbers, one-digit months', () => {
    const parsed = validate(createTransactionInput, sale);
    expect(parsed.amount).toBe('10.50');
    expect(parsed.creditCard?.expirationMonth).toBe('02');
    expect(parsed.creditCard?.expirationYear).toBe('2031');
    expect(validate(createTransactionInput, parsed)).toEqual(parsed); // core validates the facade's output again
  });

  it('gives 14021 for more fraction digits than the currency allows', () => {
    const [message] = failure({ ...sale, amount: 10.123 }).messages;
    expect(message).toMatchObject({
      errorName: 'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS',
      code: 14021,
    });
    expect(failure({ ...sale, currency: 'JPY', amount: '100.5' }).messages[0]?.code).toBe(14021);
  });

  it('names each invalid property and never echoes card data', () => {
    const { messages } = failure({
      ...sale,
      creditCard: { ...card, cardNumber: '4263982640269298', securityCode: '83' },
    });
    expect(messages.map((m) => m.invalidProperty?.name).sort()).toEqual([
      'creditCard.cardNumber',
      'creditCard.securityCode',
    ]);
    expect(JSON.stringify(messages)).not.toContain('4263982640269298');
    expect(messages.every((m) => m.invalidProperty?.messageValue === undefined)).toBe(true);
  });

  it('wants 4 CVV digits for AMEX', () => {
    const amex = { ...card, cardNumber: '374245455400126', securityCode: '837' };
    expect(failure({ ...sale, creditCard: amex }).messages[0]?.invalidProperty?.name).toBe(
      'creditCard.securityCode',
    );
    expect(
      validate(createTransactionInput, { ...sale, creditCard: { ...amex, securityCode: '1234' } }),
    ).toBeTruthy();
  });

  it('needs a way to pay, and only one card source', () => {
    const { creditCard: _, ...noCard } = sale;
    expect(failure(noCard).messages[0]?.description).toContain(
      'one of creditCard, pfToken, wallet or vaultedShopperId',
    );
    expect(failure({ ...sale, pfToken: 'abc' }).messages[0]?.invalidProperty?.name).toBe('pfToken');
  });

  it('says required for missing fields and the expected type for wrong ones', () => {
    const { amount: _, ...noAmount } = sale;
    expect(failure(noAmount).messages[0]?.description).toBe('amount: is required');
    expect(failure({ ...sale, currency: 7 }).messages[0]?.description).toBe('currency: must be a string');
  });
});

describe('transaction type against the verb', () => {
  it('lets each verb through with its own types', () => {
    expect(() => checkTransactionType({ cardTransactionType: 'AUTH_ONLY' }, 'POST')).not.toThrow();
    expect(() => checkTransactionType({ cardTransactionType: 'CAPTURE' }, 'PUT')).not.toThrow();
  });
  it('gives 85 for the other verb and 7 for an unknown type', () => {
    const thrown = (body: unknown, method: 'POST' | 'PUT') => {
      try {
        checkTransactionType(body, method);
      } catch (error) {
        return error as DomainError;
      }
      throw new Error('expected an error');
    };
    expect(thrown({ cardTransactionType: 'AUTH_REVERSAL' }, 'POST').errorName).toBe('INVALID_HTTP_METHOD');
    expect(thrown({ cardTransactionType: 'AUTH_CAPTURE' }, 'PUT').status).toBe(405);
    expect(thrown({ cardTransactionType: 'REFUND' }, 'POST').errorName).toBe('INVALID_TRANSACTION_TYPE');
    expect(thrown({}, 'PUT')).toBeInstanceOf(DomainError);
  });
});

describe('ISO 8601 durations', () => {
  it('reads weeks, days and times', () => {
    expect(durationSeconds('P9D')).toBe(777_600);
    expect(durationSeconds('P1W')).toBe(604_800);
    expect(durationSeconds('PT2H30M')).toBe(9_000);
    expect(durationSeconds('P1DT1S')).toBe(86_401);
  });
  it('refuses what is not a fixed-length duration', () => {
    for (const text of ['P', 'PT', 'P1Y', 'P1M', '-P1D', '9 days', 'P1.5D'])
      expect(durationSeconds(text)).toBeUndefined();
  });
});

describe('assertSafeInput', () => {
  const problem = (input: unknown, root?: string) => {
    try {
      assertSafeInput(input, root);
    } catch (error) {
      if (error instanceof ValidationFailure) return error.messages[0];
      throw error;
    }
    return undefined;
  };

  it('names the property holding a NUL or an unpaired surrogate, in objects and arrays', () => {
    expect(problem({ a: { b: ['ok', 'x\u0000'] } })).toMatchObject({
      errorName: 'VALIDATION_GENERAL_FAILURE',
      description: 'a.b.1: contains a NUL character',
      invalidProperty: { name: 'a.b.1' },
    });
    expect(problem({ name: 'x\ud800' })?.invalidProperty).toEqual({ name: 'name' });
    expect(problem({ name: '\udc00x' })?.description).toBe('name: contains an unpaired UTF-16 surrogate');
    expect(problem('\u0000')?.invalidProperty).toEqual({ name: 'body' });
    expect(problem({ q: '\u0000' }, 'query')?.invalidProperty).toEqual({ name: 'q' });
  });

  it('refuses such a property name without echoing it', () => {
    const message = problem({ meta: { 'k\u0000': 1 } });
    expect(message?.invalidProperty).toEqual({ name: 'meta' });
    expect(message?.description).not.toContain('\u0000');
  });

  it('lets well-formed text through, emoji and other control characters included', () => {
    expect(problem({ name: 'Zoë 🚀 李', note: 'tab\tline\n\u0001', n: 1, b: true, z: null })).toBeUndefined();
  });

  it('refuses nesting past the limit without exhausting the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    expect(problem(deep)?.description).toMatch(/is nested deeper than 32 levels$/);
    let fine: unknown = 'leaf';
    for (let i = 0; i < MAX_INPUT_DEPTH; i++) fine = [fine];
    expect(problem(fine)).toBeUndefined();
  });
});
