import { createPrivateKey, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  appleMerchantIdentifier,
  applePaymentData,
  googlePaymentMethodToken,
  googleRecipientId,
  newAppleChain,
  strangerKey,
  testMerchantWalletKeys,
  testWalletTrustFiles,
} from '../../../../test/support/wallet-tokens.ts';
import { publishedAppleToken } from '../../../../test/support/wallet-vectors.ts';
import { decryptApplePaymentData, verifyAppleSignature } from './apple-pay-crypto.ts';
import { decryptWith, lengthValue, openGooglePayToken } from './google-pay-crypto.ts';
import { parseGoogleRootKeys, parsePemCertificates } from './keys.ts';
import { detachedSigner } from './pkcs7.ts';
import { WalletTokenRejected } from './token.ts';

const files = testWalletTrustFiles();
const roots = parseGoogleRootKeys(files.googleRootKeys);
const appleRoots = parsePemCertificates(files.appleRootCertificates);
const configured = testMerchantWalletKeys(1);
const google = {
  recipientId: googleRecipientId,
  privateKeys: configured.googlePay.privateKeys.map((pem) => createPrivateKey(pem)),
};
const apple = {
  merchantIdentifier: appleMerchantIdentifier,
  privateKeys: configured.applePay.privateKeys.map((pem) => createPrivateKey(pem)),
};

const otherKey = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;

function rejected(run: () => unknown, reason: RegExp) {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(WalletTokenRejected);
  expect((thrown as Error).message).toMatch(reason);
}

describe('Google Pay ECv2', () => {
  it("opens the published ECv1 vector (Google's reference recipient's own test data): the same KEM, DEM and signed string with 16-byte keys", () => {
    const merchantKey = createPrivateKey({
      key: Buffer.from(
        'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgCPSuFr4iSIaQprjjchHPyDu2NXFe0vDBoTpPkYaK9dehRANCAATnaFz/vQKuO90pxsINyVNWojabHfbx9qIJ6uD7Q7ZSxmtyo/Ez3/o2kDT8g0pIdyVIYktCsq65VoQIDWSh2Bdm',
        'base64',
      ),
      format: 'der',
      type: 'pkcs8',
    });
    const signedMessage =
      '{"tag":"ZVwlJt7dU8Plk0+r8rPF8DmPTvDiOA1UAoNjDV+SqDE\\u003d","ephemeralPublicKey":"BPhVspn70Zj2Kkgu9t8+ApEuUWsI/zos5whGCQBlgOkuYagOis7qsrcbQrcprjvTZO3XOU+Qbcc28FSgsRtcgQE\\u003d","encryptedMessage":"12jUObueVTdy"}';
    const plain = decryptWith(merchantKey, JSON.parse(signedMessage), 16);
    expect(plain?.toString('utf8')).toBe('plaintext');
    const googleEcV1Key = createPublicKey({
      key: Buffer.from(
        'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEPYnHwS8uegWAewQtlxizmLFynwHcxRT1PK07cDA6/C4sXrVI1SzZCUx8U8S0LjMrT6ird/VW7be3Mz6t/srtRQ==',
        'base64',
      ),
      format: 'der',
      type: 'spki',
    });
    const signature = Buffer.from(
      'MEQCIDxBoUCoFRGReLdZ/cABlSSRIKoOEFoU3e27c14vMZtfAiBtX3pGMEpnw6mSAbnagCCgHlCk3NcFwWYEyxIE6KGZVA==',
      'base64',
    );
    expect(
      verify(
        'sha256',
        lengthValue('Google', 'someRecipient', 'ECv1', signedMessage),
        googleEcV1Key,
        signature,
      ),
    ).toBe(true);
  });

  it('verifies and decrypts a token: the card, its expiry, the cryptogram of a tokenized card', () => {
    const opened = openGooglePayToken(
      googlePaymentMethodToken({ pan: '5555555555554444', authMethod: 'CRYPTOGRAM_3DS' }),
      roots,
      google,
      new Date(),
    );
    expect(opened.gatewayMerchantId).toBe('paywire-test-merchant');
    expect(opened.details).toEqual({
      pan: '5555555555554444',
      expirationMonth: '12',
      expirationYear: '2031',
      authMethod: 'CRYPTOGRAM_3DS',
      cryptogram: expect.any(String),
      eciIndicator: '05',
    });
  });

  it('refuses an untrusted root, an expired intermediate key, another recipient, tampering, another key, an expired message', () => {
    const now = new Date();
    rejected(
      () => openGooglePayToken(googlePaymentMethodToken({ rootKey: otherKey() }), roots, google, now),
      /not signed by a Google root key/,
    );
    rejected(
      () =>
        openGooglePayToken(
          googlePaymentMethodToken({ intermediateExpiration: Date.now() - 1000 }),
          roots,
          google,
          now,
        ),
      /intermediate signing key has expired/,
    );
    rejected(
      () =>
        openGooglePayToken(googlePaymentMethodToken({ recipientId: 'gateway:other' }), roots, google, now),
      /not signed by the intermediate key for this recipient/,
    );
    const token = JSON.parse(googlePaymentMethodToken());
    const message = JSON.parse(token.signedMessage);
    const flipped = Buffer.from(message.encryptedMessage, 'base64');
    flipped[3] = (flipped[3] ?? 0) ^ 1;
    const tampered = JSON.stringify({
      ...token,
      signedMessage: JSON.stringify({ ...message, encryptedMessage: flipped.toString('base64') }),
    });
    rejected(() => openGooglePayToken(tampered, roots, google, now), /not signed by the intermediate key/);
    rejected(
      () =>
        openGooglePayToken(
          googlePaymentMethodToken({ merchantPublicKey: strangerKey() }),
          roots,
          google,
          now,
        ),
      /cannot be decrypted/,
    );
    rejected(
      () =>
        openGooglePayToken(
          googlePaymentMethodToken({ messageExpiration: Date.now() - 60_000 }),
          roots,
          google,
          now,
        ),
      /message has expired/,
    );
    rejected(
      () => openGooglePayToken(googlePaymentMethodToken(), [], google, now),
      /no unexpired Google root/,
    );
  });
});

describe('Apple Pay EC_v1', () => {
  it('checks the signature chain and decrypts the device account number and cryptogram', () => {
    const data = applePaymentData('PRODUCTION', { dpan: '4895370012003478', expiration: '301130' });
    verifyAppleSignature(data, appleRoots, new Date());
    expect(detachedSigner(Buffer.from(data.signature, 'base64')).signingTime.getTime()).toBeLessThanOrEqual(
      Date.now(),
    );
    expect(decryptApplePaymentData(data, apple)).toMatchObject({
      applicationPrimaryAccountNumber: '4895370012003478',
      applicationExpirationDate: '301130',
      paymentDataType: '3DSecure',
      cryptogram: expect.any(String),
      eciIndicator: '5',
    });
  });

  it("refuses another root, a leaf without Apple's OID, tampered data, an old signature, another merchant", () => {
    const now = new Date();
    rejected(
      () =>
        verifyAppleSignature(
          applePaymentData('PRODUCTION', { signature: { chain: newAppleChain('PRODUCTION') } }),
          appleRoots,
          now,
        ),
      /do not chain to a configured Apple root/,
    );
    rejected(
      () =>
        verifyAppleSignature(
          applePaymentData('PRODUCTION', {
            signature: { chain: newAppleChain('PRODUCTION', { leafOid: '1.2.3.4' }) },
          }),
          appleRoots,
          now,
        ),
      /leaf and intermediate/,
    );
    const data = applePaymentData('PRODUCTION');
    const flipped = Buffer.from(data.data, 'base64');
    flipped[5] = (flipped[5] ?? 0) ^ 1;
    rejected(
      () => verifyAppleSignature({ ...data, data: flipped.toString('base64') }, appleRoots, now),
      /does not cover this payment data/,
    );
    rejected(
      () =>
        verifyAppleSignature(
          applePaymentData('PRODUCTION', { signature: { signingTime: new Date(Date.now() - 3_600_000) } }),
          appleRoots,
          now,
        ),
      /signing time/,
    );
    rejected(
      () =>
        decryptApplePaymentData(
          applePaymentData('PRODUCTION', { merchantIdentifier: 'merchant.com.someone.else' }),
          apple,
        ),
      /cannot be decrypted for this merchant/,
    );
    rejected(
      () =>
        decryptApplePaymentData(applePaymentData('PRODUCTION', { merchantPublicKey: strangerKey() }), apple),
      /not encrypted for the merchant's keys/,
    );
    rejected(() => verifyAppleSignature(data, [], now), /no Apple root/);
  });
});

describe('Apple Pay as Apple writes it', () => {
  const root = parsePemCertificates(
    readFileSync(new URL('./roots/apple-root-ca-g3.pem', import.meta.url), 'utf8'),
  );
  const recipient = {
    merchantIdentifier: publishedAppleToken.merchantIdentifier,
    privateKeys: [createPrivateKey(publishedAppleToken.privateKey)],
  };
  const atSigning = new Date(publishedAppleToken.signedAt.getTime() + 60_000);

  it('ships Apple Root CA - G3 (its published SHA-256 fingerprint)', () => {
    expect(root.map((certificate) => certificate.fingerprint256)).toEqual([
      '63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79',
    ]);
  });

  it("verifies a real token's BER signature up to Apple's root and decrypts it", () => {
    const { paymentData } = publishedAppleToken;
    verifyAppleSignature(paymentData, root, atSigning);
    expect(decryptApplePaymentData(paymentData, recipient)).toEqual({
      applicationPrimaryAccountNumber: '5353756319181169',
      applicationExpirationDate: '240930',
      currencyCode: '840',
      transactionAmount: 100,
      paymentDataType: '3DSecure',
      cryptogram: 'AMwBRjPWDnAgAA7Rls7mAoABFA==',
    });
  });

  it('refuses it later (certificates and signing time), under another root, or for another merchant id', () => {
    const { paymentData } = publishedAppleToken;
    rejected(() => verifyAppleSignature(paymentData, root, new Date()), /not valid now|signing time/);
    rejected(() => verifyAppleSignature(paymentData, appleRoots, atSigning), /configured Apple root/);
    rejected(
      () => decryptApplePaymentData(paymentData, { ...recipient, merchantIdentifier: 'merchant.other' }),
      /cannot be decrypted for this merchant/,
    );
  });
});
