import { describe, expect, it } from 'vitest';
import {
  type NotificationRequestItem,
  notificationSignature,
  notificationSigningKey,
  validNotificationSignature,
} from './hmac.ts';

// Key, item and signatures of @adyen/api-library's own HmacValidator tests (src/__tests__/hmacValidator.spec.ts):
// matching them proves Paywire signs and checks notifications exactly as Adyen does.
const key = notificationSigningKey('DFB1EB5485895CFA84146406857104ABB4CBCABDC8AAF103A624C8F6A3EAAB00');
const item = (eventCode: string, hmacSignature?: string): NotificationRequestItem => ({
  pspReference: 'pspReference',
  originalReference: 'originalReference',
  merchantAccountCode: 'merchantAccount',
  merchantReference: 'reference',
  amount: { currency: 'EUR', value: 1000 },
  eventCode,
  success: 'true',
  ...(hmacSignature === undefined ? {} : { additionalData: { hmacSignature } }),
});

describe('notification HMAC', () => {
  it("signs as Adyen's library does", () => {
    expect(notificationSignature(item('REPORT_AVAILABLE'), key)).toBe(
      'ZNBPtI+oDyyRrLyD1XirkKnQgIAlFc07Vj27TeHsDRE=',
    );
    expect(notificationSignature(item('EVENT'), key)).toBe('ipnxGCaUZ4l8TUW75a71/ghd2Fe5ffvX0pV4TLTntIc=');
  });

  it('accepts the signature Adyen computed and nothing else', () => {
    expect(
      validNotificationSignature(item('EVENT', 'ipnxGCaUZ4l8TUW75a71/ghd2Fe5ffvX0pV4TLTntIc='), key),
    ).toBe(true);
    expect(
      validNotificationSignature(item('EVENT', 'ZNBPtI+oDyyRrLyD1XirkKnQgIAlFc07Vj27TeHsDRE='), key),
    ).toBe(false);
    expect(validNotificationSignature(item('EVENT', 'notValidSign'), key)).toBe(false);
    expect(validNotificationSignature(item('EVENT'), key)).toBe(false);
  });

  it('refuses, without throwing, a signature of the right text length that decodes to other bytes', () => {
    expect(validNotificationSignature(item('EVENT', 'A'.repeat(44)), key)).toBe(false);
  });

  it('signs missing fields as empty strings', () => {
    const bare = { pspReference: 'p', eventCode: 'CAPTURE', success: 'false' };
    const full = { ...bare, originalReference: '', merchantAccountCode: '', merchantReference: '' };
    expect(notificationSignature(bare, key)).toBe(notificationSignature(full, key));
  });
});
