import { describe, expect, it } from 'vitest';
import { adyenSpec } from '../../../../../test/support/fake-adyen/spec.ts';
import { type AuthorizationRequest, type ModificationRequest, ProcessorRejected } from '../processor.ts';
import {
  captureRequest,
  mpiData,
  paymentRequest,
  refundRequest,
  reversalRequest,
  technicalCancelRequest,
} from './requests.ts';

/** Every body against Adyen's published document, with the validators the fake Adyen uses. */
function expectValid(schema: string, body: unknown) {
  expect(adyenSpec().schema(schema, body)?.text).toBeUndefined();
}

const now = new Date('2026-11-26T00:00:00Z');
const card = {
  number: '4111111111111111',
  securityCode: '737',
  expirationMonth: '3',
  expirationYear: '2030',
  brand: 'VISA',
} as const;
const account = { merchantAccount: 'PaywireECOM', returnUrl: 'https://paywire.invalid/adyen/return' };
const base = { reference: '2f6d3c2e-4a43-4b1a-9a55-0d7b5d0f5e61', amountMinor: 1050, currency: 'EUR', now };
const cavv = Buffer.alloc(20, 7).toString('base64');

describe('Adyen /payments bodies', () => {
  it('a card sale: captured at once, holder named, CVC sent', () => {
    const body = paymentRequest(
      { ...base, capture: true, card, cardHolder: { firstName: 'Ada', lastName: 'Lovelace', zip: '1011' } },
      account,
    );
    expectValid('PaymentRequest', body);
    expect(body).toEqual({
      merchantAccount: 'PaywireECOM',
      reference: base.reference,
      amount: { currency: 'EUR', value: 1050 },
      paymentMethod: {
        type: 'scheme',
        number: '4111111111111111',
        expiryMonth: '03',
        expiryYear: '2030',
        cvc: '737',
        holderName: 'Ada Lovelace',
      },
      returnUrl: account.returnUrl,
      shopperInteraction: 'Ecommerce',
      captureDelayHours: 0,
      shopperName: { firstName: 'Ada', lastName: 'Lovelace' },
    });
  });

  it('an auth-only asks for manual capture whatever the account default', () => {
    const { securityCode: _, ...noCvc } = card;
    const body = paymentRequest({ ...base, card: noCvc, cardHolder: { lastName: 'Lovelace' } }, account);
    expectValid('PaymentRequest', body);
    expect(body.additionalData).toEqual({ manualCapture: 'true' });
    expect(body).not.toHaveProperty('captureDelayHours');
    expect(body).not.toHaveProperty('shopperName');
    expect(body.paymentMethod).toEqual({
      type: 'scheme',
      number: card.number,
      expiryMonth: '03',
      expiryYear: '2030',
      holderName: 'Lovelace',
    });
  });

  it('wallet tokens: Google Pay as given, Apple Pay base64-encoded', () => {
    const wallet = { environment: 'TEST', brand: 'VISA', lastFour: '1111' } as const;
    const google = paymentRequest(
      {
        ...base,
        capture: true,
        wallet: { ...wallet, walletType: 'GOOGLE_PAY', paymentData: '{"signature":"x"}' },
      },
      account,
    );
    expectValid('PaymentRequest', google);
    expect(google.paymentMethod).toEqual({ type: 'googlepay', googlePayToken: '{"signature":"x"}' });
    const apple = paymentRequest(
      { ...base, wallet: { ...wallet, walletType: 'APPLE_PAY', paymentData: '{"version":"EC_v1"}' } },
      account,
    );
    expectValid('PaymentRequest', apple);
    expect(apple.paymentMethod).toEqual({
      type: 'applepay',
      applePayToken: Buffer.from('{"version":"EC_v1"}').toString('base64'),
    });
  });

  it('a production wallet token Paywire decrypted: the network token and its cryptogram, never the sealed token', () => {
    const wallet = { environment: 'PRODUCTION', brand: 'MASTERCARD', lastFour: '4444' } as const;
    const cryptogram = Buffer.alloc(20, 9).toString('base64');
    const tokenized = paymentRequest(
      {
        ...base,
        capture: true,
        wallet: {
          ...wallet,
          walletType: 'GOOGLE_PAY',
          paymentData: '{"signature":"sealed"}',
          decrypted: {
            number: '5204240000004242',
            expirationMonth: '2',
            expirationYear: '2031',
            cryptogram,
            eci: '05',
          },
        },
      },
      account,
    );
    expectValid('PaymentRequest', tokenized);
    expect(tokenized.paymentMethod).toEqual({
      type: 'networkToken',
      number: '5204240000004242',
      expiryMonth: '02',
      expiryYear: '2031',
    });
    expect(tokenized.mpiData).toEqual({ tokenAuthenticationVerificationValue: cryptogram, eci: '05' });
    expect(JSON.stringify(tokenized)).not.toContain('sealed');

    const panOnly = paymentRequest(
      {
        ...base,
        wallet: {
          ...wallet,
          walletType: 'GOOGLE_PAY',
          paymentData: '{"signature":"sealed"}',
          decrypted: { number: '4111111111111111', expirationMonth: '12', expirationYear: '2030' },
        },
      },
      account,
    );
    expectValid('PaymentRequest', panOnly);
    expect(panOnly.paymentMethod).toEqual({
      type: 'scheme',
      number: '4111111111111111',
      expiryMonth: '12',
      expiryYear: '2030',
    });
    expect(panOnly.mpiData).toBeUndefined();
  });

  it("an external MPI's 3-D Secure 2 result as mpiData", () => {
    const request: AuthorizationRequest = {
      ...base,
      card,
      threeDSecure: {
        eci: '05',
        cavv,
        dsTransactionId: 'c4e59ceb-a382-4d6a-bc87-385d591fa09d',
        threeDSecureVersion: '2.2.0',
      },
    };
    const body = paymentRequest(request, account);
    expectValid('PaymentRequest', body);
    expect(body.mpiData).toEqual({
      eci: '05',
      cavv,
      dsTransID: 'c4e59ceb-a382-4d6a-bc87-385d591fa09d',
      threeDSVersion: '2.2.0',
      directoryResponse: 'Y',
    });
  });

  it('3-D Secure 1 as an enrolled card with the authentication status; statuses follow the ECI', () => {
    const xid = Buffer.alloc(20, 1).toString('base64');
    const v1 = mpiData({ eci: '06', cavv, xid, threeDSecureVersion: '1.0.2' });
    expectValid('ThreeDSecureData', v1);
    expect(v1).toEqual({
      eci: '06',
      cavv,
      xid,
      threeDSVersion: '1.0.2',
      directoryResponse: 'Y',
      authenticationResponse: 'A',
    });
    expect(mpiData({ eci: '02', cavv }).directoryResponse).toBe('Y');
    expect(mpiData({ eci: '01', cavv }).directoryResponse).toBe('A');
    expect(mpiData({ eci: '07', cavv }).directoryResponse).toBe('N');
    expect(mpiData({ eci: '05', cavv, xid }).authenticationResponse).toBe('Y');
  });

  it('refuses a 3-D Secure reference it cannot send', () => {
    expect(() =>
      paymentRequest({ ...base, card, threeDSecure: { threeDSecureReferenceId: '42' } }, account),
    ).toThrow(ProcessorRejected);
  });
});

describe('Adyen modification bodies', () => {
  const modification: ModificationRequest = {
    reference: 'a1b2c3d4-0000-4000-8000-000000000001',
    processorReference: 'PSP0000000000001',
    amountMinor: 500,
    currency: 'EUR',
  };

  it('capture, cancel and refund name the merchant account and our reference', () => {
    const capture = captureRequest(modification, 'PaywireECOM');
    expectValid('PaymentCaptureRequest', capture);
    expect(capture).toEqual({
      merchantAccount: 'PaywireECOM',
      amount: { currency: 'EUR', value: 500 },
      reference: modification.reference,
    });
    const cancel = reversalRequest(modification, 'PaywireECOM');
    expectValid('PaymentReversalRequest', cancel);
    expect(cancel).toEqual({ merchantAccount: 'PaywireECOM', reference: modification.reference });
    const refund = refundRequest(modification, 'PaywireECOM');
    expectValid('PaymentRefundRequest', refund);
    expect(refund).toEqual(capture);
  });

  it('a technical cancel names the payment by our attempt reference', () => {
    const body = technicalCancelRequest(base.reference, 'PaywireECOM');
    expectValid('StandalonePaymentCancelRequest', body);
    expect(body).toEqual({
      merchantAccount: 'PaywireECOM',
      paymentReference: base.reference,
      reference: `${base.reference}-technical-cancel`,
    });
  });

  it('the validator does validate: a body missing a required field fails', () => {
    expect(adyenSpec().schema('PaymentCaptureRequest', { merchantAccount: 'PaywireECOM' })).toBeDefined();
    expect(
      adyenSpec().schema('PaymentRequest', { ...paymentRequest({ ...base, card }, account), returnUrl: 1 }),
    ).toBeDefined();
  });
});
