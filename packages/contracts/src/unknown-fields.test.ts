import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as contracts from './index.ts';
import * as processorNotifications from './processor-notifications.ts';
import { createAltTransactionInput } from './sepa.ts';
import { createTransactionInput, refundInput } from './transactions.ts';
import { validate } from './validation.ts';

/**
 * The interface's one rule for properties it does not know: accepted and ignored, at every depth, in
 * JSON and XML alike (README, Conformance decisions). The original's own Node SDK sends properties the
 * original ignores (`cardHoldersInfo`, `storeCard`, `walletId`, `vendorsInfo`...), so refusing them would
 * break the integrations Paywire exists to keep working. zod's plain objects strip unknown keys; this test
 * holds every contract to that, so no schema quietly becomes strict.
 */

type Def = { type: string; catchall?: unknown } & Record<string, unknown>;

function strictObjects(schema: z.ZodType, path: string, seen = new Set<unknown>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = schema._zod.def as unknown as Def;
  const found: string[] = [];
  if (def.type === 'object' && def.catchall !== undefined) found.push(path);
  const visit = (value: unknown, at: string) => {
    if (value instanceof z.ZodType) found.push(...strictObjects(value, at, seen));
    else if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, `${at}[${index}]`);
    } else if (typeof value === 'object' && value !== null && !(value instanceof Function))
      for (const [key, item] of Object.entries(value)) visit(item, `${at}.${key}`);
  };
  for (const [key, value] of Object.entries(def)) if (key !== 'catchall') visit(value, path);
  return found;
}

describe('unknown properties', () => {
  it('no contract refuses them: every object schema strips what it does not know', () => {
    // Adyen's notifications are not the interface: they keep what they do not know, to be stored raw.
    const processorFacing = new Set<unknown>(Object.values(processorNotifications));
    const schemas = Object.entries(contracts).filter(
      ([, value]) => value instanceof z.ZodType && !processorFacing.has(value),
    );
    expect(schemas.length).toBeGreaterThan(20);
    const strict = schemas.flatMap(([name, schema]) => strictObjects(schema as z.ZodType, name));
    expect(strict).toEqual([]);
  });

  it('the test finds a strict object, so the rule it checks is real', () => {
    expect(strictObjects(z.object({ a: z.strictObject({ b: z.string() }) }), 'x')).toEqual(['x.a']);
  });

  it('the original Node SDK request shapes parse, their extra properties dropped', () => {
    const sale = validate(createTransactionInput, {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 10,
      currency: 'USD',
      cardHoldersInfo: { firstName: 'Ada' },
      storeCard: true,
      walletId: 5,
      descriptorPhoneNumber: '555-0100',
      vendorsInfo: { vendorInfo: [] },
      creditCard: {
        cardNumber: '4263982640269299',
        securityCode: '837',
        expirationMonth: '02',
        expirationYear: '2031',
        encryptedCardNumber: 'ignored',
      },
      threeDSecure: { threeDSecureResultToken: 'token-1', unknownToo: 1 },
    });
    expect(sale).not.toHaveProperty('cardHoldersInfo');
    expect(sale).not.toHaveProperty('storeCard');
    expect(sale.creditCard).not.toHaveProperty('encryptedCardNumber');
    expect(sale.threeDSecure).toEqual({ threeDSecureResultToken: 'token-1' });

    const debit = validate(createAltTransactionInput, {
      amount: 10,
      currency: 'EUR',
      authorizedByShopper: true,
      payerInfo: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
      sepaDirectDebitTransaction: { iban: 'DE89370400440532013000' },
      softDescriptor: 'ignored',
      transactionFraudInfo: { fraudSessionId: 'ignored' },
    });
    expect(debit).not.toHaveProperty('softDescriptor');
    expect(debit.payerInfo).toEqual({ firstName: 'Ada', lastName: 'Lovelace' });

    const refund = validate(refundInput, { transactionId: '1', 'vendor.7.amount': '1.00' });
    expect(refund).toEqual({ transactionId: '1' });
  });
});
