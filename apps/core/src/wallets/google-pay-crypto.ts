import {
  createDecipheriv,
  createHmac,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  type KeyObject,
  timingSafeEqual,
  verify,
} from 'node:crypto';
import { z } from 'zod';
import { WalletTokenRejected } from './token.ts';

/**
 * Google Pay's ECv2 payment method token, as Google's "Payment data cryptography" guide defines it:
 * 1. the intermediate signing key is signed by one of Google's root signing keys (a configured key set) that
 *    has not expired, and has not expired itself;
 * 2. the signed message is signed by the intermediate key, for this recipient;
 * 3. the message is decrypted with the recipient's private key: ECIES-KEM (ECDH on P-256 with the ephemeral
 *    public key, HKDF-SHA256 over ephemeral key || shared secret, empty salt, info "Google", 64 bytes), the
 *    MAC (HMAC-SHA256 over the ciphertext, second half of the key) checked before AES-256-CTR with a zero IV
 *    (first half) decrypts;
 * 4. the decrypted message has not expired.
 * Every failure is a WalletTokenRejected whose reason names the step, never a value of the token.
 */

/** One of Google's root signing keys, in the shape Google publishes them (keys.json). */
export interface GoogleRootKey {
  /** Base-64 X.509 SubjectPublicKeyInfo of a P-256 key. */
  keyValue: string;
  protocolVersion: string;
  /** Milliseconds since the epoch; absent: does not expire. */
  keyExpiration?: string;
}

export const googleRootKeySet = z.object({
  keys: z.array(
    z.object({
      keyValue: z.string().min(1),
      protocolVersion: z.string().min(1),
      keyExpiration: z.string().regex(/^\d+$/).optional(),
    }),
  ),
});

/** Who the token must be for, and the keys that open it (several while a key is being rotated). */
export interface GoogleRecipient {
  /** `merchant:<merchantId>` or `gateway:<gatewayId>`: what Google signed the message for. */
  recipientId: string;
  privateKeys: KeyObject[];
}

/** The payment method inside a decrypted ECv2 message (paymentMethod CARD). */
export interface GooglePaymentMethodDetails {
  /** The card number (PAN_ONLY) or the device account number (CRYPTOGRAM_3DS). */
  pan: string;
  expirationMonth: string;
  expirationYear: string;
  authMethod: 'PAN_ONLY' | 'CRYPTOGRAM_3DS';
  cryptogram?: string;
  eciIndicator?: string;
}

export interface GoogleDecryptedMessage {
  messageId: string;
  /** The gateway merchant id the merchant gave Google Pay (gateway tokenization). */
  gatewayMerchantId?: string;
  details: GooglePaymentMethodDetails;
}

const sender = 'Google';
const protocolVersion = 'ECv2';

/** The guide's signed strings: each part preceded by its UTF-8 length as four little-endian bytes. */
export function lengthValue(...parts: string[]): Buffer {
  return Buffer.concat(
    parts.flatMap((part) => {
      const bytes = Buffer.from(part, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32LE(bytes.length);
      return [length, bytes];
    }),
  );
}

function spkiKey(base64: string): KeyObject {
  try {
    return createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw new WalletTokenRejected('a signing key cannot be read');
  }
}

const ecdsaValid = (key: KeyObject, data: Buffer, signature: string) => {
  try {
    return verify('sha256', data, key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
};

const expiredAt = (milliseconds: string | undefined, now: Date) =>
  milliseconds !== undefined && !(Number(milliseconds) > now.getTime());

const token = z.object({
  protocolVersion: z.literal(protocolVersion),
  signature: z.string().min(1),
  signedMessage: z.string().min(1),
  intermediateSigningKey: z.object({
    signedKey: z.string().min(1),
    signatures: z.array(z.string().min(1)).min(1),
  }),
});

const signedKey = z.object({
  keyValue: z.string().min(1),
  keyExpiration: z.string().regex(/^\d+$/),
});

const signedMessage = z.strictObject({
  encryptedMessage: z.string().min(1),
  ephemeralPublicKey: z.string().min(1),
  tag: z.string().min(1),
});

const digitsOf = (value: string | number) => String(value);

const message = z.object({
  messageId: z.string().min(1),
  messageExpiration: z.string().regex(/^\d+$/),
  gatewayMerchantId: z.string().optional(),
  paymentMethod: z.literal('CARD'),
  paymentMethodDetails: z
    .object({
      pan: z
        .string()
        .regex(/^\d{12,19}$/)
        .optional(),
      /** Older ECv2 messages name a tokenized card's number dpan. */
      dpan: z
        .string()
        .regex(/^\d{12,19}$/)
        .optional(),
      expirationMonth: z.union([z.number().int().min(1).max(12), z.string().regex(/^\d{1,2}$/)]),
      expirationYear: z.union([z.number().int().min(2000).max(2200), z.string().regex(/^\d{4}$/)]),
      authMethod: z.enum(['PAN_ONLY', 'CRYPTOGRAM_3DS']),
      cryptogram: z.string().min(1).optional(),
      eciIndicator: z.string().optional(),
    })
    .refine((details) => details.pan ?? details.dpan, 'has no card number'),
});

function parsed<S extends z.ZodType>(schema: S, text: string, what: string): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WalletTokenRejected(`${what} is not JSON`);
  }
  const result = schema.safeParse(json);
  if (!result.success) throw new WalletTokenRejected(`${what} is not in the ECv2 form`);
  return result.data;
}

/** Steps 1 and 2: the intermediate key, then the message. Returns the verified signed message. */
export function verifyGoogleSignatures(
  tokenText: string,
  rootKeys: readonly GoogleRootKey[],
  recipientId: string,
  now: Date,
): z.output<typeof signedMessage> {
  const signed = parsed(token, tokenText, 'the payment method token');
  const roots = rootKeys
    .filter((key) => key.protocolVersion === protocolVersion && !expiredAt(key.keyExpiration, now))
    .map((key) => spkiKey(key.keyValue));
  if (roots.length === 0) throw new WalletTokenRejected('no unexpired Google root signing key is configured');
  const { intermediateSigningKey } = signed;
  const keyBytes = lengthValue(sender, protocolVersion, intermediateSigningKey.signedKey);
  const keySigned = intermediateSigningKey.signatures.some((signature) =>
    roots.some((root) => ecdsaValid(root, keyBytes, signature)),
  );
  if (!keySigned)
    throw new WalletTokenRejected('the intermediate signing key is not signed by a Google root key');
  const intermediate = parsed(signedKey, intermediateSigningKey.signedKey, 'the intermediate signing key');
  if (expiredAt(intermediate.keyExpiration, now))
    throw new WalletTokenRejected('the intermediate signing key has expired');
  const messageBytes = lengthValue(sender, recipientId, protocolVersion, signed.signedMessage);
  if (!ecdsaValid(spkiKey(intermediate.keyValue), messageBytes, signed.signature))
    throw new WalletTokenRejected('the message is not signed by the intermediate key for this recipient');
  return parsed(signedMessage, signed.signedMessage, 'the signed message');
}

/** The uncompressed P-256 point of an ECv2 ephemeral key as a public key. */
function rawP256Key(point: Buffer): KeyObject {
  if (point.length !== 65 || point[0] !== 0x04)
    throw new WalletTokenRejected('the ephemeral public key is not an uncompressed P-256 point');
  // SubjectPublicKeyInfo for id-ecPublicKey on prime256v1, followed by the point.
  const prefix = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');
  try {
    return createPublicKey({ key: Buffer.concat([prefix, point]), format: 'der', type: 'spki' });
  } catch {
    throw new WalletTokenRejected('the ephemeral public key is not on P-256');
  }
}

/**
 * Step 3 with one private key: undefined when the MAC does not match (another key, or tampering). ECv2 uses
 * 32-byte AES and MAC keys; ECv1, the same scheme with 16-byte keys, is only used to check the scheme against
 * a published vector.
 */
export function decryptWith(
  privateKey: KeyObject,
  sealed: z.output<typeof signedMessage>,
  keyLength: 16 | 32 = 32,
): Buffer | undefined {
  const ephemeralBytes = Buffer.from(sealed.ephemeralPublicKey, 'base64');
  let shared: Buffer;
  try {
    shared = diffieHellman({ privateKey, publicKey: rawP256Key(ephemeralBytes) });
  } catch (error) {
    if (error instanceof WalletTokenRejected) throw error;
    return undefined; // a key of another curve
  }
  const keys = Buffer.from(
    hkdfSync('sha256', Buffer.concat([ephemeralBytes, shared]), Buffer.alloc(0), sender, 2 * keyLength),
  );
  const ciphertext = Buffer.from(sealed.encryptedMessage, 'base64');
  const tag = Buffer.from(sealed.tag, 'base64');
  const expected = createHmac('sha256', keys.subarray(keyLength)).update(ciphertext).digest();
  if (tag.length !== expected.length || !timingSafeEqual(tag, expected)) return undefined;
  const decipher = createDecipheriv(
    `aes-${8 * keyLength}-ctr`,
    keys.subarray(0, keyLength),
    Buffer.alloc(16),
  );
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}

/** Verifies and opens an ECv2 token (its JSON text, tokenizationData.token) for the recipient. */
export function openGooglePayToken(
  tokenText: string,
  rootKeys: readonly GoogleRootKey[],
  recipient: GoogleRecipient,
  now: Date,
): GoogleDecryptedMessage {
  const sealed = verifyGoogleSignatures(tokenText, rootKeys, recipient.recipientId, now);
  const plain = recipient.privateKeys
    .map((key) => decryptWith(key, sealed))
    .find((bytes) => bytes !== undefined);
  if (!plain) throw new WalletTokenRejected("the message cannot be decrypted with the merchant's keys");
  const opened = parsed(message, plain.toString('utf8'), 'the decrypted message');
  if (expiredAt(opened.messageExpiration, now)) throw new WalletTokenRejected('the message has expired');
  const details = opened.paymentMethodDetails;
  return {
    messageId: opened.messageId,
    ...(opened.gatewayMerchantId !== undefined ? { gatewayMerchantId: opened.gatewayMerchantId } : {}),
    details: {
      pan: (details.pan ?? details.dpan) as string,
      expirationMonth: digitsOf(details.expirationMonth).padStart(2, '0'),
      expirationYear: digitsOf(details.expirationYear),
      authMethod: details.authMethod,
      ...(details.cryptogram ? { cryptogram: details.cryptogram } : {}),
      ...(details.eciIndicator ? { eciIndicator: details.eciIndicator } : {}),
    },
  };
}
