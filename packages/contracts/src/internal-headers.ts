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
  /**
   * The address of the merchant's client whose Basic login the facade checked, for the audit trail: its
   * presence makes the merchant, not the calling credential, the actor. Honoured from any-merchant callers.
   */
  clientAddress: 'x-paywire-client-address',
} as const;
