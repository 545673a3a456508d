import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';

/**
 * Card data at rest: AES-256-GCM under data keys (DEKs) that a key provider wraps (keys/), each ciphertext
 * naming its key: `v2:<key id>:<base64 iv | 16-byte tag | body>`, with additional data binding it to its
 * merchant, table and row, so a value copied into another row does not open. A separate fingerprint key makes
 * a keyed fingerprint (`f<key id>:<HMAC>`; a bare HMAC under a legacy fingerprint key), so the same card can be
 * recognised without decrypting anything. Fingerprint keys rotate apart from DEKs; while two are live, lookups
 * try the fingerprints under both (`fingerprints`), so a rotation changes no duplicate detection and no replay.
 *
 * `v1:` values (one static key, no key id, no additional data) stay readable under the legacy key imported at
 * the first start, until a rotation re-encrypts them.
 */
export interface CardVault {
  seal(plain: string, at: Binding): string;
  open(sealed: string, at: Binding): string;
  /** The fingerprint new values get: under the current fingerprint key. */
  fingerprint(value: string): string;
  /** The value's fingerprint under every live fingerprint key, the current one first: what lookups match. */
  fingerprints(value: string): [string, ...string[]];
  /** The fingerprint under a given key (re-fingerprinting under the key a rotation made current). */
  fingerprintWith(keyId: number, value: string): string;
  /** Seals under a given key (re-encryption under the key a rotation made current). */
  sealWith(keyId: number, plain: string, at: Binding): string;
  /** The data key currently sealing. */
  currentKeyId(): number;
}

/** The tables that hold sealed values, and what of each row is bound into its ciphertext. */
export type SealedTable =
  | 'stored_card'
  | 'payment_fields_token'
  | 'sepa_mandate'
  | 'processor_account'
  | 'wallet_keys'
  | 'ipn_secret'
  | 'vendor';

/**
 * Where a sealed value lives: its merchant, table and the row's stable identity as known when it is written
 * (a stored card's and a mandate's fingerprint, unique per shopper; a token's value; an account's name; a
 * vendor's id).
 */
export interface Binding {
  merchantId: number;
  table: SealedTable;
  row: string;
}

export const bindings = {
  card: (merchantId: number, fingerprint: string): Binding => ({
    merchantId,
    table: 'stored_card',
    row: fingerprint,
  }),
  token: (merchantId: number, token: string): Binding => ({
    merchantId,
    table: 'payment_fields_token',
    row: token,
  }),
  mandate: (merchantId: number, ibanFingerprint: string): Binding => ({
    merchantId,
    table: 'sepa_mandate',
    row: ibanFingerprint,
  }),
  account: (merchantId: number, name: string): Binding => ({
    merchantId,
    table: 'processor_account',
    row: name,
  }),
  walletKeys: (merchantId: number): Binding => ({
    merchantId,
    table: 'wallet_keys',
    row: String(merchantId),
  }),
  ipnSecret: (merchantId: number, id: number | string): Binding => ({
    merchantId,
    table: 'ipn_secret',
    row: String(id),
  }),
  vendor: (merchantId: number, vendorId: number): Binding => ({
    merchantId,
    table: 'vendor',
    row: String(vendorId),
  }),
};

/**
 * What a mandate's account is fingerprinted as, apart from card numbers whatever the digits: an IBAN alone,
 * an ACH account number with its routing number (the number is unique only with it).
 */
export const accountFingerprintInput = (account: {
  scheme: 'SEPA' | 'ACH';
  number: string;
  routingNumber: string | null;
}) =>
  account.scheme === 'ACH' ? `ach:${account.routingNumber}:${account.number}` : `iban:${account.number}`;

/** A data key, unwrapped once (at start, or when a refresh finds a new one). */
export interface DataKey {
  id: number;
  purpose: 'encryption' | 'fingerprint';
  /**
   * Of the format before key ids: the encryption key `v1:` values were sealed under (opens them, never seals);
   * a fingerprint key whose fingerprints are bare HMACs.
   */
  legacy: boolean;
  /** When it may start sealing (every core has learnt it by then). */
  activatesAt: Date;
  key: KeyObject;
}

/** The data keys a process knows; replaced whole when a refresh finds keys added or retired. */
export interface KeyRing {
  keys: DataKey[];
}

const tagLength = 16;
const ivLength = 12;

function additionalData(keyId: number | 'v1', at: Binding): Buffer {
  return Buffer.from(`paywire|${keyId}|${at.table}|${at.merchantId}|${at.row}`, 'utf8');
}

function decrypt(key: KeyObject, raw: Buffer, aad: Buffer | null): string {
  // A shorter tag is refused here, not by GCM (which would accept 4 bytes).
  if (raw.length < ivLength + tagLength) throw new Error('sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, ivLength), {
    authTagLength: tagLength,
  });
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(raw.subarray(ivLength, ivLength + tagLength));
  return Buffer.concat([decipher.update(raw.subarray(ivLength + tagLength)), decipher.final()]).toString(
    'utf8',
  );
}

/** A vault over a key ring that `replace` swaps (keys/ring.ts refreshes it); every lookup is in memory. */
export interface RefreshableVault extends CardVault {
  ring(): KeyRing;
  replace(ring: KeyRing): void;
}

export function createCardVault(initial: KeyRing, now: () => number = Date.now): RefreshableVault {
  let ring = initial;
  let byId = new Map<number, DataKey>();
  let sealing: DataKey[] = []; // newest first
  let fingerprinting: DataKey[] = []; // newest first
  let legacy: DataKey | undefined;
  const newestFirst = (keys: DataKey[]) =>
    keys.sort((a, b) => b.activatesAt.getTime() - a.activatesAt.getTime() || b.id - a.id);
  const index = (next: KeyRing) => {
    ring = next;
    byId = new Map(next.keys.map((key) => [key.id, key]));
    sealing = newestFirst(next.keys.filter((key) => key.purpose === 'encryption' && !key.legacy));
    fingerprinting = newestFirst(next.keys.filter((key) => key.purpose === 'fingerprint'));
    legacy = next.keys.find((key) => key.purpose === 'encryption' && key.legacy);
    if (fingerprinting.length === 0) throw new Error('the key ring has no fingerprint key');
    if (sealing.length === 0) throw new Error('the key ring has no data key to seal with');
  };
  index(initial);
  /** The newest key already active (every core has learnt it), else the oldest. */
  const current = (keys: DataKey[]): DataKey => {
    const at = now();
    const active = keys.find((key) => key.activatesAt.getTime() <= at) ?? keys[keys.length - 1];
    if (!active) throw new Error('the key ring has no data key to seal with');
    return active;
  };
  const fingerprintUnder = (key: DataKey, value: string) => {
    const mac = createHmac('sha256', key.key).update(value).digest('base64url');
    return key.legacy ? mac : `f${key.id}:${mac}`;
  };
  const sealUnder = (key: DataKey, plain: string, at: Binding) => {
    const iv = randomBytes(ivLength);
    const cipher = createCipheriv('aes-256-gcm', key.key, iv, { authTagLength: tagLength });
    cipher.setAAD(additionalData(key.id, at));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v2:${key.id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  };

  return {
    seal: (plain, at) => sealUnder(current(sealing), plain, at),
    sealWith(keyId, plain, at) {
      const key = byId.get(keyId);
      if (key?.purpose !== 'encryption' || key.legacy) throw new Error(`data key ${keyId} cannot seal`);
      return sealUnder(key, plain, at);
    },
    open(sealed, at) {
      const [format, id, payload] = sealed.split(':');
      if (format === 'v1' && id && payload === undefined) {
        if (!legacy) throw new Error('a v1 value, and no legacy key to open it');
        return decrypt(legacy.key, Buffer.from(id, 'base64'), null);
      }
      if (format !== 'v2' || !id || !payload || !/^\d{1,9}$/.test(id))
        throw new Error('unknown card vault format');
      const key = byId.get(Number(id));
      if (key?.purpose !== 'encryption') throw new Error(`data key ${id} is unknown to this process`);
      return decrypt(key.key, Buffer.from(payload, 'base64'), additionalData(key.id, at));
    },
    fingerprint: (value) => fingerprintUnder(current(fingerprinting), value),
    fingerprints(value) {
      const first = current(fingerprinting);
      return [
        fingerprintUnder(first, value),
        ...fingerprinting.filter((key) => key !== first).map((key) => fingerprintUnder(key, value)),
      ];
    },
    fingerprintWith(keyId, value) {
      const key = byId.get(keyId);
      if (key?.purpose !== 'fingerprint') throw new Error(`data key ${keyId} is no fingerprint key`);
      return fingerprintUnder(key, value);
    },
    currentKeyId: () => current(sealing).id,
    ring: () => ring,
    replace: index,
  };
}

/** The two keys the one static secret of `v1` derived: imported (wrapped) at the first start. */
export function legacyKeys(secret: Buffer): { encryption: Buffer; fingerprint: Buffer } {
  if (secret.length !== 32) throw new Error('the card encryption key must be 32 bytes');
  const derive = (purpose: string) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));
  return { encryption: derive('paywire card encryption'), fingerprint: derive('paywire card fingerprint') };
}

/** A ring of fresh keys, for unit tests and tools that hold no database. */
export function ephemeralRing(legacySecret?: Buffer): KeyRing {
  const legacy = legacySecret ? legacyKeys(legacySecret) : undefined;
  const epoch = new Date(0);
  return {
    keys: [
      {
        id: 1,
        purpose: 'fingerprint',
        legacy: legacy !== undefined,
        activatesAt: epoch,
        key: createSecretKey(legacy?.fingerprint ?? randomBytes(32)),
      },
      {
        id: 2,
        purpose: 'encryption',
        legacy: false,
        activatesAt: epoch,
        key: createSecretKey(randomBytes(32)),
      },
      ...(legacy
        ? [
            {
              id: 3,
              purpose: 'encryption' as const,
              legacy: true,
              activatesAt: epoch,
              key: createSecretKey(legacy.encryption),
            },
          ]
        : []),
    ],
  };
}

declare module '../context.ts' {
  interface CoreServices {
    vault: CardVault;
  }
}
