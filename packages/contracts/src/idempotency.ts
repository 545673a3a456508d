import { DomainError } from './errors.ts';

/** Idempotency-Key (see docs/conformance.md, Idempotency): at most 64 letters, digits and '-', kept 24 hours. */
export const idempotencyKeyMaxLength = 64;
export const idempotencyRetentionSeconds = 24 * 3600;

export function checkIdempotencyKey(key: string): string {
  if (key.length > idempotencyKeyMaxLength) {
    throw new DomainError(
      'IDEMPOTENCY_KEY_MAX_LENGTH_LIMIT_EXCEEDED',
      `Idempotency-Key must be at most ${idempotencyKeyMaxLength} characters`,
      {
        name: 'Idempotency-Key',
      },
    );
  }
  if (!/^[A-Za-z0-9-]+$/.test(key)) {
    throw new DomainError('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key may hold only letters, digits and -', {
      name: 'Idempotency-Key',
    });
  }
  return key;
}

/** What a keyed call carries from the facade to core. */
export interface IdempotentRequest {
  key: string;
  /** Hash of everything that makes two requests the same; core derives one from the input when absent. */
  fingerprint?: string;
}
