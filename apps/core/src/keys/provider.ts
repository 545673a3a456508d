import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Holds the key-encryption key (KEK) that wraps every data key (DEK). The KEK never leaves the provider;
 * core only ever sees DEKs, unwrapped once at start (and when a rotation adds one), never per request.
 *
 * A cloud KMS plugs in here: `wrap` is the KMS's Encrypt (or GenerateDataKey's ciphertext), `unwrap` its
 * Decrypt, both with `context` as the encryption context, and `kekId` the KMS key's ARN or resource name
 * (docs/keys.md, "A cloud KMS"). Nothing else in core changes.
 */
export interface KeyProvider {
  /** file, pkcs11 (kms:... for a cloud KMS) */
  readonly kind: string;
  /** Names the KEK; stored beside every DEK it wrapped, so a different KEK is recognised before any unwrap. */
  readonly kekId: string;
  /** Wraps a DEK; `context` (the data key's id) is bound to the wrapping and must be given to unwrap it. */
  wrap(dek: Buffer, context: string): Promise<Buffer>;
  /** Throws when the KEK is not the one that wrapped it, or `context` differs. */
  unwrap(wrapped: Buffer, context: string): Promise<Buffer>;
  close(): Promise<void>;
}

/** A refusal to start: the message is the operator's, printed as is. */
export class KeyConfigurationError extends Error {
  override name = 'KeyConfigurationError';
}

const tagLength = 16;

/** AES-256-GCM wrapping under a local key: iv (12) | tag (16) | wrapped DEK. */
export function gcmWrap(kek: Buffer, plain: Buffer, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek, iv, { authTagLength: tagLength });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function gcmUnwrap(kek: Buffer, wrapped: Buffer, context: string): Buffer {
  if (wrapped.length < 12 + tagLength + 1) throw new Error('wrapped key too short');
  const decipher = createDecipheriv('aes-256-gcm', kek, wrapped.subarray(0, 12), {
    authTagLength: tagLength,
  });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(wrapped.subarray(12, 12 + tagLength));
  return Buffer.concat([decipher.update(wrapped.subarray(12 + tagLength)), decipher.final()]);
}

/** A key's check value: the first 6 bytes of HMAC-SHA256(key, "paywire key check"), hex; reveals nothing. */
export function checkValue(key: Buffer): string {
  return createHmac('sha256', key).update('paywire key check').digest('hex').slice(0, 12);
}

/**
 * The embedded default: the KEK derived from a 32-byte secret (CARD_ENCRYPTION_KEY, which `npm start`
 * generates once into its data directory). The secret sits beside the data it protects: never for live use.
 */
export function fileKeyProvider(secret: Buffer): KeyProvider {
  if (secret.length !== 32)
    throw new KeyConfigurationError('CARD_ENCRYPTION_KEY must be 32 bytes, base64-encoded');
  const kek = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'paywire key-encryption key', 32));
  return {
    kind: 'file',
    kekId: `file:${checkValue(kek)}`,
    wrap: async (dek, context) => gcmWrap(kek, dek, context),
    unwrap: async (wrapped, context) => gcmUnwrap(kek, wrapped, context),
    close: async () => {},
  };
}
