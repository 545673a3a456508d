/**
 * Headers of internal calls to core: the caller's credential (`Authorization: Bearer pwc_...`), the
 * merchant an any-merchant caller acts for, and an idempotency key with the request's fingerprint.
 */
export const internalHeaders = {
  authorization: 'authorization',
  merchant: 'x-paywire-merchant',
  idempotencyKey: 'x-paywire-idempotency-key',
  fingerprint: 'x-paywire-request-fingerprint',
  /** The id of the facade request a call serves, for core's logs and the IPN deliveries it causes. */
  requestId: 'x-paywire-request-id',
} as const;
