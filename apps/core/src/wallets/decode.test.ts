import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, type WalletInput } from '@paywire/contracts';
import { describe, expect, it } from 'vitest';
import {
  applePaymentData,
  applePayPayment,
  cmsSignature,
  encodeMobile,
  encodeWeb,
  googlePayMobileData,
  googlePaymentMethodToken,
  googlePayWebPaymentData,
} from '../../../../test/support/wallet-tokens.ts';
import type { MerchantContext } from '../context.ts';
import { decodeBase64Json, decodeWalletToken } from './decode.ts';
import { detachedSigner, MalformedSignature, signedDataCertificates } from './pkcs7.ts';
import { resolveWalletToken } from './service.ts';

const google = (encodedPaymentToken: string): WalletInput => ({
  walletType: 'GOOGLE_PAY',
  encodedPaymentToken,
});
const apple = (encodedPaymentToken: string): WalletInput => ({
  walletType: 'APPLE_PAY',
  encodedPaymentToken,
});

/** The 400 every bad token gets: it names wallet.encodedPaymentToken and never echoes the token. */
function expectInvalid(run: () => unknown, problem: RegExp, token?: string) {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(DomainError);
  const error = thrown as DomainError;
  expect(error.errorName).toBe('VALIDATION_GENERAL_FAILURE');
  expect(error.invalidProperty).toEqual({ name: 'wallet.encodedPaymentToken' });
  expect(error.message).toMatch(/^wallet\.encodedPaymentToken: /);
  expect(error.message).toMatch(problem);
  if (token) expect(error.message).not.toContain(token.slice(0, 12));
}

describe('Google Pay tokens', () => {
  it('decodes the web form: standard base-64 of PaymentData, billing address and email', () => {
    const data = googlePayWebPaymentData({
      environment: 'PRODUCTION',
      cardNetwork: 'MASTERCARD',
      cardDetails: '4444',
    });
    const decoded = decodeWalletToken(google(encodeWeb(data)));
    expect(decoded).toEqual({
      walletType: 'GOOGLE_PAY',
      environment: 'PRODUCTION',
      brand: 'MASTERCARD',
      lastFour: '4444',
      billingContact: {
        firstName: 'Card Holder',
        lastName: 'Name',
        address1: '1600 Amphitheatre Parkway',
        city: 'Mountain View',
        state: 'CA',
        zip: '94043',
        country: 'us',
      },
      email: 'card.holder@example.com',
      paymentData: data.paymentMethodData.tokenizationData.token,
    });
  });

  it('decodes the mobile form: URL-safe base-64 without padding, with the card class', () => {
    const data = googlePayMobileData({
      environment: 'PRODUCTION',
      cardNetwork: 'AMEX',
      cardDetails: '0005',
      cardClass: 'DEBIT',
    });
    const encoded = encodeMobile(data);
    expect(encoded).not.toMatch(/[+/=]/);
    const decoded = decodeWalletToken(google(encoded));
    expect(decoded).toMatchObject({
      brand: 'AMEX',
      lastFour: '0005',
      cardClass: 'DEBIT',
      environment: 'PRODUCTION',
    });
  });

  it('accepts padded URL-safe base-64 (Android Base64.URL_SAFE | NO_WRAP) and wrapped lines', () => {
    const json = googlePayMobileData({ environment: 'PRODUCTION' });
    const padded = Buffer.from(JSON.stringify(json))
      .toString('base64')
      .replace(/\+/g, '-')
      .replace(/\//g, '_');
    expect(decodeWalletToken(google(padded)).lastFour).toBe('1111');
    const wrapped = encodeWeb(json).replace(/(.{76})/g, '$1\n');
    expect(decodeWalletToken(google(wrapped)).lastFour).toBe('1111');
  });

  it("tells TEST tokens by the TEST environment's placeholder token or test-suite card", () => {
    expect(decodeWalletToken(google(encodeWeb(googlePayWebPaymentData()))).environment).toBe('TEST');
    const signedTestCard = googlePayWebPaymentData({
      token: googlePaymentMethodToken(),
      description: 'Test Card: Visa •••• 1111',
    });
    expect(decodeWalletToken(google(encodeWeb(signedTestCard))).environment).toBe('TEST');
    const placeholderRealName = googlePayMobileData({ environment: 'TEST', description: 'Visa •••• 1111' });
    expect(decodeWalletToken(google(encodeMobile(placeholderRealName))).environment).toBe('TEST');
  });

  it('maps networks to brands and refuses the ones Paywire does not process', () => {
    const brand = (cardNetwork: string) =>
      decodeWalletToken(google(encodeWeb(googlePayWebPaymentData({ cardNetwork })))).brand;
    expect(brand('VISA')).toBe('VISA');
    expect(brand('ELECTRON')).toBe('VISA');
    expect(brand('MAESTRO')).toBe('MASTERCARD');
    expect(brand('DISCOVER')).toBe('DISCOVER');
    expect(brand('JCB')).toBe('JCB');
    expectInvalid(
      () => brand('INTERAC'),
      /paymentMethodData\.info\.cardNetwork is not a supported card network/,
    );
  });

  it('names the missing or wrong field inside the token', () => {
    const data = googlePayWebPaymentData({ environment: 'PRODUCTION' });
    const without = (mutate: (copy: typeof data) => void) => {
      const copy = structuredClone(data);
      mutate(copy);
      return google(encodeWeb(copy));
    };
    expectInvalid(
      () => decodeWalletToken(without((d) => Reflect.deleteProperty(d, 'paymentMethodData'))),
      /paymentMethodData is required/,
    );
    expectInvalid(
      () =>
        decodeWalletToken(without((d) => Reflect.deleteProperty(d.paymentMethodData.info, 'cardDetails'))),
      /paymentMethodData\.info\.cardDetails is required/,
    );
    expectInvalid(
      () =>
        decodeWalletToken(without((d) => Object.assign(d.paymentMethodData.info, { cardDetails: '12345' }))),
      /paymentMethodData\.info\.cardDetails must be the last four digits/,
    );
    expectInvalid(
      () =>
        decodeWalletToken(without((d) => Object.assign(d.paymentMethodData.tokenizationData, { token: '' }))),
      /paymentMethodData\.tokenizationData\.token/,
    );
    expectInvalid(
      () =>
        decodeWalletToken(
          without((d) => Object.assign(d.paymentMethodData.tokenizationData, { token: 'not a token' })),
        ),
      /tokenizationData\.token is not a Google Pay payment method token/,
    );
    const unsigned = JSON.stringify({ protocolVersion: 'ECv2', signature: 'MEU=', signedMessage: '{}' });
    expectInvalid(
      () =>
        decodeWalletToken(
          without((d) => Object.assign(d.paymentMethodData.tokenizationData, { token: unsigned })),
        ),
      /tokenizationData\.token\.intermediateSigningKey is required/,
    );
    expectInvalid(
      () =>
        decodeWalletToken(
          without((d) => Object.assign(d.paymentMethodData.info, { billingAddress: { countryCode: 'USA' } })),
        ),
      /billingAddress\.countryCode must be a two-letter country code/,
    );
  });
});

describe('Apple Pay tokens', () => {
  it('decodes the web form (ApplePayPayment): network, last four, type, billing contact, the paymentData', () => {
    const payment = applePayPayment({
      environment: 'PRODUCTION',
      network: 'MasterCard',
      displayName: 'MasterCard 1471',
      type: 'credit',
    });
    const decoded = decodeWalletToken(apple(encodeWeb(payment)));
    expect(decoded).toEqual({
      walletType: 'APPLE_PAY',
      environment: 'PRODUCTION',
      brand: 'MASTERCARD',
      lastFour: '1471',
      cardClass: 'CREDIT',
      billingContact: {
        firstName: 'Grace',
        lastName: 'Hopper',
        address1: '1 Infinite Loop',
        address2: 'Building 2',
        city: 'Cupertino',
        state: 'CA',
        zip: '95014',
        country: 'us',
      },
      email: 'grace@example.com',
      paymentData: JSON.stringify(payment.token.paymentData),
    });
  });

  it('takes the last fours of the card and of the device account number from the Wallet pass', () => {
    const payment = applePayPayment({
      environment: 'TEST',
      displayName: 'Visa',
      paymentPass: { primaryAccountNumberSuffix: '0492', deviceAccountNumberSuffix: '0010' },
    });
    expect(decodeWalletToken(apple(encodeMobile(payment)))).toMatchObject({
      environment: 'TEST',
      lastFour: '0492',
      dpanLastFour: '0010',
      cardClass: 'DEBIT',
    });
  });

  it('accepts the token alone, without the payment around it', () => {
    const { token } = applePayPayment({ environment: 'PRODUCTION' });
    expect(decodeWalletToken(apple(encodeWeb(token)))).toMatchObject({ brand: 'VISA', lastFour: '0492' });
  });

  it("tells the environment by Apple's signing certificate", () => {
    const env = (environment: 'TEST' | 'PRODUCTION') =>
      decodeWalletToken(apple(encodeWeb(applePayPayment({ environment })))).environment;
    expect(env('TEST')).toBe('TEST');
    expect(env('PRODUCTION')).toBe('PRODUCTION');
    const certificates = signedDataCertificates(Buffer.from(applePaymentData('TEST').signature, 'base64'));
    expect(certificates.map((certificate) => certificate.subject)).toEqual([
      'CN=ecc-smp-broker-sign_UC4-SANDBOX\nOU=iOS Systems\nO=Apple Inc.\nC=US',
      'CN=Apple Application Integration CA - G3\nOU=Apple Certification Authority\nO=Apple Inc.\nC=US',
    ]);
  });

  it('refuses a signature that is not an Apple Pay one', () => {
    const withSignature = (signature: string) => {
      const payment = applePayPayment();
      payment.token.paymentData.signature = signature;
      return apple(encodeWeb(payment));
    };
    const notSignedData = Buffer.from('3003020101', 'hex').toString('base64');
    for (const signature of [
      'bm90IGEgc2lnbmF0dXJl',
      notSignedData,
      'ÿÿ',
      cmsSignature(Buffer.from('x'), 'TEST').slice(0, 200),
    ]) {
      expectInvalid(
        () => decodeWalletToken(withSignature(signature)),
        /not signed by an Apple Pay certificate/,
      );
    }
  });

  it('names the missing or wrong field inside the token', () => {
    const payment = applePayPayment({ environment: 'PRODUCTION' });
    const broken = (mutate: (copy: typeof payment) => void) => {
      const copy = structuredClone(payment);
      mutate(copy);
      return apple(encodeWeb(copy));
    };
    expectInvalid(
      () => decodeWalletToken(broken((p) => Reflect.deleteProperty(p.token, 'paymentData'))),
      /token\.paymentData is required/,
    );
    expectInvalid(
      () =>
        decodeWalletToken(
          broken((p) => Reflect.deleteProperty(p.token.paymentData.header, 'ephemeralPublicKey')),
        ),
      /token\.paymentData\.header\.ephemeralPublicKey is required/,
    );
    expectInvalid(
      () => decodeWalletToken(broken((p) => Object.assign(p.token.paymentMethod, { type: 'gift' }))),
      /token\.paymentMethod\.type must be one of debit, credit, prepaid, store/,
    );
    expectInvalid(
      () =>
        decodeWalletToken(broken((p) => Object.assign(p.token.paymentMethod, { displayName: 'My card' }))),
      /displayName does not end in the card's last four digits/,
    );
    expectInvalid(
      () => decodeWalletToken(broken((p) => Object.assign(p.token.paymentMethod, { network: 'Interac' }))),
      /token\.paymentMethod\.network is not a supported card network/,
    );
  });
});

describe('the encoding', () => {
  it('refuses what is not base-64, not UTF-8, not JSON or not an object, without quoting it', () => {
    const secret = encodeWeb(googlePayWebPaymentData({ environment: 'PRODUCTION' }));
    expectInvalid(
      () => decodeBase64Json(`${secret.slice(0, 40)}!${secret.slice(40)}`),
      /is not base-64$/,
      secret,
    );
    expectInvalid(
      () => decodeBase64Json(`${secret.slice(0, 40)}-+${secret.slice(40)}`),
      /is not base-64$/,
      secret,
    );
    expectInvalid(() => decodeBase64Json('abcde'), /is not base-64$/);
    expectInvalid(() => decodeBase64Json('YWJj=='), /is not base-64$/);
    expectInvalid(() => decodeBase64Json(Buffer.from([0xff, 0xfe, 0x41]).toString('base64')), /UTF-8/);
    const truncated = Buffer.from('{"paymentMethodData":{"secret":"4111111111111111"').toString('base64');
    expectInvalid(() => decodeBase64Json(truncated), /does not decode to JSON$/, '4111111111111111');
    expectInvalid(() => decodeBase64Json(Buffer.from('[1,2]').toString('base64')), /a JSON object/);
    expectInvalid(() => decodeBase64Json(Buffer.from('"text"').toString('base64')), /a JSON object/);
  });

  it('reads a SignedData defensively', () => {
    for (const hex of ['', '30', '3081', '30850000000001', '3005060100a000', '30820fff0609']) {
      expect(() => signedDataCertificates(Buffer.from(hex, 'hex'))).toThrow(MalformedSignature);
    }
    // BER indefinite lengths (Apple's form): unterminated, on a primitive element, or nested without end.
    for (const hex of ['3080', '30800601', '0480000000', '3080'.repeat(40) + '0000'.repeat(40)]) {
      expect(() => signedDataCertificates(Buffer.from(hex, 'hex'))).toThrow(MalformedSignature);
    }
    expect(() => detachedSigner(Buffer.from('3080060100000000', 'hex'))).toThrow(MalformedSignature);
  });
});

describe('the environment rule', () => {
  const testToken = google(encodeWeb(googlePayWebPaymentData({ environment: 'TEST' })));
  const productionToken = apple(encodeWeb(applePayPayment({ environment: 'PRODUCTION' })));
  // A test token is a dummy: it is resolved without reading the merchant's keys, so no database is needed.
  const contextIn = (mode: 'sandbox' | 'live') => ({ mode, merchantId: 1 }) as unknown as MerchantContext;
  const noDatabase = undefined as unknown as EntityManager;

  it('keeps a test token a dummy in the sandbox: nothing decrypted', async () => {
    const resolved = await resolveWalletToken(contextIn('sandbox'), noDatabase, testToken, new Date());
    expect(resolved.environment).toBe('TEST');
    expect(resolved.decrypted).toBeUndefined();
    expect(decodeWalletToken(productionToken).environment).toBe('PRODUCTION');
  });

  it('refuses a test token in live mode with 20012', async () => {
    await expect(
      resolveWalletToken(contextIn('live'), noDatabase, testToken, new Date()),
    ).rejects.toMatchObject({
      errorName: 'INVALID_PAYMENT_DETAILS',
      invalidProperty: { name: 'wallet.encodedPaymentToken' },
    });
  });
});
