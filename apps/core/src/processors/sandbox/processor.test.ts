import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuthorizationRequest, CardToCharge, WalletToCharge } from '../processor.ts';
import { createSandboxProcessor, sandboxCardProfile } from './processor.ts';

const sandbox = createSandboxProcessor();

const now = new Date('2026-11-23T00:00:00Z');
const request = (
  card: Partial<CardToCharge>,
  amountMinor = 1000,
  currency = 'USD',
): AuthorizationRequest => ({
  reference: randomUUID(),
  amountMinor,
  currency,
  now,
  card: {
    number: '4263982640269299',
    securityCode: '837',
    expirationMonth: '12',
    expirationYear: '2030',
    brand: 'VISA',
    ...card,
  },
});

describe('sandbox processor', () => {
  it('approves the test cards with codes', async () => {
    const result = await sandbox.authorize(request({}));
    expect(result).toMatchObject({ approved: true, cvvResponseCode: 'MA' });
    if (result.approved) expect(result.authorizationCode).toMatch(/^\d{6}$/);
  });

  it.each([
    [{ number: '4917484589897107' }, 1000, 'DO_NOT_HONOR'],
    [{ number: '378282246310005', brand: 'AMEX' as const }, 1000, 'DO_NOT_HONOR'],
    [{ number: '6011000991300009', brand: 'DISCOVER' as const }, 1000, 'DO_NOT_HONOR'],
    [{ number: '3530111333300000', brand: 'JCB' as const }, 1000, 'DO_NOT_HONOR'],
    [{ expirationMonth: '10', expirationYear: '2026' }, 1000, 'EXPIRED_CARD'],
    [{}, 1051, 'INSUFFICIENT_FUNDS'],
    [{ securityCode: '000' }, 1000, 'CVV_ERROR'],
  ])('declines %o for %i minor units with %s', async (card, amountMinor, reason) => {
    expect(await sandbox.authorize(request(card, amountMinor))).toEqual({ approved: false, reason });
  });

  it('reads ".51" in the currency’s own decimals: 51 yen is not 0.51', async () => {
    expect((await sandbox.authorize(request({}, 51, 'JPY'))).approved).toBe(true);
  });

  it('reports not-checked CVV when none was sent', async () => {
    expect(await sandbox.authorize(request({ securityCode: undefined }))).toMatchObject({
      cvvResponseCode: 'NC',
    });
  });

  describe('wallet payments', () => {
    const wallet = (
      environment: WalletToCharge['environment'],
      amountMinor = 1000,
    ): AuthorizationRequest => ({
      reference: randomUUID(),
      amountMinor,
      currency: 'USD',
      now,
      cardHolder: { firstName: 'Ada', lastName: 'Lovelace' },
      wallet: {
        walletType: 'GOOGLE_PAY',
        environment,
        brand: 'VISA',
        lastFour: '1111',
        paymentData: '{"protocolVersion":"ECv2"}',
      },
    });

    it('approves test and production tokens alike, with no CVV checked', async () => {
      for (const environment of ['TEST', 'PRODUCTION'] as const) {
        expect(await sandbox.authorize(wallet(environment))).toMatchObject({
          approved: true,
          cvvResponseCode: 'NC',
          avsResponseCodeName: 'M',
        });
      }
    });

    it('declines by the amount rule', async () => {
      expect(await sandbox.authorize(wallet('TEST', 1051))).toEqual({
        approved: false,
        reason: 'INSUFFICIENT_FUNDS',
      });
    });

    it("profiles a wallet card by the wallet's card class", () => {
      expect(sandboxCardProfile({ brand: 'VISA', cardClass: 'DEBIT' })).toMatchObject({
        cardSubType: 'DEBIT',
        cardCategory: 'CLASSIC',
      });
      expect(sandboxCardProfile({ brand: 'MASTERCARD', cardClass: 'PREPAID' })).toMatchObject({
        cardSubType: 'DEBIT',
        cardCategory: 'PREPAID',
      });
      expect(sandboxCardProfile({ brand: 'AMEX' })).toMatchObject({
        cardSubType: 'CREDIT',
        cardCategory: 'PLATINUM',
      });
    });
  });
});

describe('sandbox 3-D Secure', () => {
  it('answers an authentication result only when the request carried 3-D Secure data', async () => {
    const plain = await sandbox.authorize(request({}));
    expect(plain).not.toHaveProperty('threeDSecure');
    const secured = await sandbox.authorize({
      ...request({}),
      threeDSecure: { eci: '07', cavv: 'AAABBWFlmQAAAABjRWWZEEFgFz8=' },
    });
    expect(secured).toMatchObject({
      approved: true,
      threeDSecure: { authenticationResult: 'AUTHENTICATION_FAILED' },
    });
  });

  it('reads a wallet payment by its brand', async () => {
    const wallet: WalletToCharge = {
      walletType: 'GOOGLE_PAY',
      environment: 'TEST',
      brand: 'MASTERCARD',
      lastFour: '1111',
      paymentData: '{}',
    };
    const result = await sandbox.authorize({
      reference: randomUUID(),
      amountMinor: 1000,
      currency: 'USD',
      now,
      wallet,
      threeDSecure: { eci: '02', cavv: 'AAABBWFlmQAAAABjRWWZEEFgFz8=' },
    });
    expect(result).toMatchObject({ threeDSecure: { authenticationResult: 'AUTHENTICATION_SUCCEEDED' } });
  });
});

describe('sandbox technical cancel', () => {
  it('voids what was authorized under the reference, once, and refuses a request that arrives after it', async () => {
    const sandbox = createSandboxProcessor();
    const approved = request({});
    await sandbox.authorize(approved);
    expect(await sandbox.technicalCancel(approved.reference)).toEqual({ status: 'done' });
    expect(await sandbox.technicalCancel(approved.reference)).toEqual({ status: 'done' });
    expect(sandbox.book.get(approved.reference)?.reversed).toBe(true);

    const late = request({});
    await sandbox.technicalCancel(late.reference);
    expect(await sandbox.authorize(late)).toEqual({ approved: false, reason: 'DO_NOT_HONOR' });
    expect(await sandbox.inquire(randomUUID())).toBe('unseen');
  });
});
