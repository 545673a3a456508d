import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

/** The fields of a standard notification's NotificationRequestItem (Webhooks v1) that its signature covers. */
export interface NotificationRequestItem {
  pspReference?: string;
  originalReference?: string;
  merchantAccountCode?: string;
  merchantReference?: string;
  amount?: { value?: number; currency?: string };
  eventCode?: string;
  success?: string;
  additionalData?: { hmacSignature?: string; [key: string]: string | undefined };
}

/**
 * An account's HMAC key, decoded from its hex form once: a notification per payment would otherwise decode
 * the text and build Node's key object for every item.
 */
export function notificationSigningKey(hexKey: string): KeyObject {
  return createSecretKey(Buffer.from(hexKey, 'hex'));
}

/**
 * The signature Adyen puts in additionalData.hmacSignature, computed as its HmacValidator does: the eight fields
 * joined by colons (a missing one as an empty string), HMAC-SHA256 under the hex-decoded key, base64.
 */
export function notificationSignature(item: NotificationRequestItem, key: KeyObject): string {
  const signed = [
    item.pspReference,
    item.originalReference,
    item.merchantAccountCode,
    item.merchantReference,
    item.amount?.value,
    item.amount?.currency,
    item.eventCode,
    item.success,
  ]
    .map((field) => (field === undefined ? '' : String(field)))
    .join(':');
  return createHmac('sha256', key).update(signed, 'utf8').digest('base64');
}

/** Whether the item carries a signature made with this key; compared in constant time, never throwing. */
export function validNotificationSignature(item: NotificationRequestItem, key: KeyObject): boolean {
  const received = item.additionalData?.hmacSignature;
  if (!received) return false;
  const expected = Buffer.from(notificationSignature(item, key), 'base64');
  const given = Buffer.from(received, 'base64');
  // Equal-length base64 text can decode to different byte lengths, which timingSafeEqual refuses.
  return expected.length === given.length && timingSafeEqual(expected, given);
}
