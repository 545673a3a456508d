import { describe, expect, it } from 'vitest';
import { type AuthorizationRequest, ProcessorUnavailable } from '../processor.ts';
import {
  authenticationResult,
  authorizationOutcome,
  avsResponseCodes,
  cvvResponseCode,
  declineReason,
} from './results.ts';

const request: AuthorizationRequest = {
  reference: 'ref-1',
  amountMinor: 1000,
  currency: 'EUR',
  now: new Date('2026-11-26T00:00:00Z'),
  card: { number: '4111111111111111', expirationMonth: '03', expirationYear: '2030', brand: 'VISA' },
};

describe('Adyen authorization outcomes', () => {
  it('Authorised approves with the pspReference, auth code and network reference', () => {
    expect(
      authorizationOutcome(
        {
          resultCode: 'Authorised',
          pspReference: 'PSP1',
          additionalData: {
            authCode: '058747',
            networkTxReference: '123456789012345',
            cvcResult: '1 Matches',
            avsResult: '7 Both postal code and address match',
          },
        },
        request,
      ),
    ).toEqual({
      approved: true,
      processorReference: 'PSP1',
      authorizationCode: '058747',
      networkTransactionId: '123456789012345',
      cvvResponseCode: 'MA',
      avsResponseCodeZip: 'M',
      avsResponseCodeAddress: 'M',
      avsResponseCodeName: 'U',
    });
  });

  it('without a network reference the pspReference stands in; nothing known is unknown', () => {
    expect(authorizationOutcome({ resultCode: 'Authorised', pspReference: 'PSP2' }, request)).toMatchObject({
      authorizationCode: '',
      networkTransactionId: 'PSP2',
      cvvResponseCode: 'NR',
      avsResponseCodeZip: 'U',
      avsResponseCodeAddress: 'U',
      avsResponseCodeName: 'U',
    });
  });

  it("says what Adyen made of 3-D Secure data, and a wallet's device card", () => {
    const secured = { ...request, threeDSecure: { eci: '05' as const, cavv: 'AAAA' } };
    expect(
      authorizationOutcome(
        { resultCode: 'Authorised', pspReference: 'PSP3', additionalData: { threeDAuthenticated: 'true' } },
        secured,
      ),
    ).toMatchObject({ threeDSecure: { authenticationResult: 'AUTHENTICATION_SUCCEEDED' } });
    const { card: _, ...rest } = request;
    const wallet: AuthorizationRequest = {
      ...rest,
      wallet: {
        walletType: 'GOOGLE_PAY',
        environment: 'TEST',
        brand: 'VISA',
        lastFour: '1111',
        paymentData: '{}',
      },
    };
    expect(
      authorizationOutcome(
        {
          resultCode: 'Authorised',
          pspReference: 'PSP4',
          additionalData: { cardSummary: '4242', expiryDate: '6/2031' },
        },
        wallet,
      ),
    ).toMatchObject({
      tokenizedCard: { dpanLastFour: '4242', dpanExpirationMonth: '06', dpanExpirationYear: '2031' },
    });
  });

  it('Refused and Cancelled decline by refusal reason, keeping the pspReference', () => {
    expect(
      authorizationOutcome({ resultCode: 'Refused', pspReference: 'PSP5', refusalReasonCode: '12' }, request),
    ).toEqual({ approved: false, reason: 'INSUFFICIENT_FUNDS', processorReference: 'PSP5' });
    expect(authorizationOutcome({ resultCode: 'Cancelled', refusalReasonCode: '15' }, request)).toEqual({
      approved: false,
      reason: 'DO_NOT_HONOR',
    });
  });

  it("a request for Adyen's own 3-D Secure flow declines: Paywire sends MPI data, it runs no challenge", () => {
    for (const resultCode of ['RedirectShopper', 'IdentifyShopper', 'ChallengeShopper'] as const)
      expect(authorizationOutcome({ resultCode, pspReference: 'PSP6' }, request)).toEqual({
        approved: false,
        reason: 'DO_NOT_HONOR',
        processorReference: 'PSP6',
      });
  });

  it('Error, and any result not final, leave the outcome unknown: reached, never failed over', () => {
    for (const resultCode of ['Error', 'Pending', 'Received', 'PartiallyAuthorised', undefined] as const) {
      const outcome = () =>
        authorizationOutcome({ resultCode, pspReference: 'PSP7', refusalReasonCode: '4' }, request);
      expect(outcome).toThrow(ProcessorUnavailable);
      try {
        outcome();
      } catch (error) {
        expect((error as ProcessorUnavailable).reached).toBe(true);
      }
    }
    expect(() => authorizationOutcome({ resultCode: 'Authorised' }, request)).toThrow(ProcessorUnavailable);
  });
});

describe('Adyen codes to Paywire codes', () => {
  it('refusal reasons with a Paywire counterpart; every other one is DO_NOT_HONOR', () => {
    expect(declineReason('3')).toBe('CALL_ISSUER');
    expect(declineReason('5')).toBe('CARD_LOST_OR_STOLEN');
    expect(declineReason('6')).toBe('EXPIRED_CARD');
    expect(declineReason('12')).toBe('INSUFFICIENT_FUNDS');
    expect(declineReason('24')).toBe('CVV_ERROR');
    for (const code of ['2', '4', '7', '8', '14', '20', '22', '25', '31', '999', undefined])
      expect(declineReason(code)).toBe('DO_NOT_HONOR');
  });

  it('cvcResult', () => {
    expect(
      [
        '0 Unknown',
        '1 Matches',
        '2 No Match',
        '3 Not checked',
        '4 No CVC/CID provided, but was required',
      ].map(cvvResponseCode),
    ).toEqual(['NR', 'MA', 'NM', 'NC', 'ND']);
    expect(
      ['5 Issuer not certified for CVC', '6 No CVC/CID provided', '9 New', 'garbled'].map(cvvResponseCode),
    ).toEqual(['U', 'ND', 'NR', 'NR']);
  });

  it('avsResult per postal code, address and name', () => {
    const codes = (result: string) => Object.values(avsResponseCodes(result)).join('');
    expect(codes('1 Address matches, but the postal code does not match')).toBe('NMU');
    expect(codes('6 Postal code matches, but the address does not match')).toBe('MNU');
    expect(codes('20 Name, address and postal code matches')).toBe('MMM');
    expect(codes('23 Postal code matches, name does not match')).toBe('MUN');
    expect(codes('26 Neither postal code, address nor name matches')).toBe('NNN');
    expect(codes('27 Unlisted')).toBe('UUU');
  });

  it('3-D Secure results', () => {
    expect(authenticationResult({ threeDAuthenticated: 'false', liabilityShift: 'true' })).toBe(
      'AUTHENTICATION_BYPASSED',
    );
    expect(authenticationResult({ threeDAuthenticated: 'false' })).toBe('AUTHENTICATION_FAILED');
    expect(authenticationResult({})).toBe('AUTHENTICATION_UNAVAILABLE');
  });
});
