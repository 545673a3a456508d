/** Headers of the facade's calls to core: the merchant it authenticated, and an idempotency key with the request's fingerprint. */
export const internalHeaders = {
  merchant: 'x-paywire-merchant',
  idempotencyKey: 'x-paywire-idempotency-key',
  fingerprint: 'x-paywire-request-fingerprint',
} as const;
