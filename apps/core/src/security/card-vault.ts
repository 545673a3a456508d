import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  randomBytes,
} from 'node:crypto';

/**
 * Card data at rest: AES-256-GCM under a key from the environment. A separate key derived from the
 * same secret makes a keyed fingerprint, so the same card can be recognised without decrypting anything.
 */
export interface CardVault {
  seal(plain: string): string;
  open(sealed: string): string;
  fingerprint(cardNumber: string): string;
}

const version = 'v1';

export function createCardVault(secret: Buffer): CardVault {
  if (secret.length !== 32) throw new Error('the card encryption key must be 32 bytes');
  // KeyObjects made once: a raw Buffer key is re-imported by every cipher and HMAC call.
  const derive = (purpose: string) =>
    createSecretKey(Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32)));
  const encryptionKey = derive('paywire card encryption');
  const fingerprintKey = derive('paywire card fingerprint');

  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${version}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed) {
      const [tag, payload] = sealed.split(':');
      if (tag !== version || !payload) throw new Error('unknown card vault format');
      const raw = Buffer.from(payload, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
    fingerprint(cardNumber) {
      return createHmac('sha256', fingerprintKey).update(cardNumber).digest('base64url');
    },
  };
}
