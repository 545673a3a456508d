import { randomBytes } from 'node:crypto';
import type Pkcs11Binding from 'pkcs11js';
import { KeyConfigurationError, type KeyProvider } from './provider.ts';

export interface Pkcs11Settings {
  /** The PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so */
  module: string;
  /** The token's label (the slot is found by it). */
  tokenLabel: string;
  pin: string;
  /** The label of the AES-256 KEK on the token (made by `npm run keys -- create-kek`). */
  keyLabel: string;
}

type Binding = typeof Pkcs11Binding;
type Session = { module: Pkcs11Binding.PKCS11; session: Buffer };

let binding: Binding | undefined;

/**
 * pkcs11js is a native add-on, loaded only when KEY_PROVIDER=pkcs11: an install that skipped its build (the
 * image's `npm ci --ignore-scripts`) still runs the file provider.
 */
async function pkcs11Binding(): Promise<Binding> {
  if (binding) return binding;
  try {
    binding = (await import('pkcs11js')).default;
  } catch (error) {
    throw new KeyConfigurationError(
      `KEY_PROVIDER=pkcs11 needs the pkcs11js add-on built (npm rebuild pkcs11js): ${(error as Error).message}`,
    );
  }
  return binding;
}

/** A PKCS#11 library can be initialised once per process: every provider of the process shares it. */
const loaded = new Map<string, Pkcs11Binding.PKCS11>();

function load(pkcs11js: Binding, path: string): Pkcs11Binding.PKCS11 {
  const known = loaded.get(path);
  if (known) return known;
  const module = new pkcs11js.PKCS11();
  try {
    module.load(path);
  } catch (error) {
    throw new KeyConfigurationError(`PKCS11_MODULE ${path} cannot be loaded: ${(error as Error).message}`);
  }
  try {
    module.C_Initialize();
  } catch (error) {
    if ((error as { code?: number }).code !== pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED) throw error;
  }
  loaded.set(path, module);
  return module;
}

function codeName(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Opens a logged-in session on the token labelled `tokenLabel`; a wrong PIN is a refusal to start. */
function openSession(pkcs11js: Binding, settings: Pkcs11Settings, readWrite = false): Session {
  const module = load(pkcs11js, settings.module);
  const slot = module
    .C_GetSlotList(true)
    .find((candidate) => module.C_GetTokenInfo(candidate).label.trim() === settings.tokenLabel);
  if (!slot)
    throw new KeyConfigurationError(
      `no PKCS#11 token labelled "${settings.tokenLabel}" in ${settings.module} (PKCS11_TOKEN_LABEL)`,
    );
  const session = module.C_OpenSession(
    slot,
    pkcs11js.CKF_SERIAL_SESSION | (readWrite ? pkcs11js.CKF_RW_SESSION : 0),
  );
  try {
    module.C_Login(session, pkcs11js.CKU_USER, settings.pin);
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code !== pkcs11js.CKR_USER_ALREADY_LOGGED_IN) {
      module.C_CloseSession(session);
      if (code === pkcs11js.CKR_PIN_INCORRECT || code === pkcs11js.CKR_PIN_LOCKED)
        throw new KeyConfigurationError(
          `the HSM token "${settings.tokenLabel}" refused the PIN (${codeName(error)}): check PKCS11_PIN`,
        );
      throw new KeyConfigurationError(`logging in to the HSM token failed: ${codeName(error)}`);
    }
  }
  return { module, session };
}

function findKey(pkcs11js: Binding, { module, session }: Session, label: string): Buffer | null {
  module.C_FindObjectsInit(session, [
    { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
    { type: pkcs11js.CKA_LABEL, value: label },
  ]);
  const found = module.C_FindObjects(session, 2);
  module.C_FindObjectsFinal(session);
  if (found.length > 1) throw new KeyConfigurationError(`more than one key labelled "${label}" on the token`);
  return found[0] ?? null;
}

const gcm = (pkcs11js: Binding, iv: Buffer, context: string) => ({
  mechanism: pkcs11js.CKM_AES_GCM,
  parameter: {
    type: pkcs11js.CK_PARAMS_AES_GCM,
    iv,
    aad: Buffer.from(context, 'utf8'),
    ivBits: 96,
    tagBits: 128,
  },
});

/**
 * The KEK in an HSM through PKCS#11: an AES-256 key that never leaves the token (sensitive, not extractable).
 * DEKs are wrapped by the token's AES-GCM (C_Encrypt), iv (12) | ciphertext and 16-byte tag.
 */
export async function pkcs11KeyProvider(settings: Pkcs11Settings): Promise<KeyProvider> {
  const pkcs11js = await pkcs11Binding();
  const opened = openSession(pkcs11js, settings);
  const key = findKey(pkcs11js, opened, settings.keyLabel);
  if (!key) {
    opened.module.C_CloseSession(opened.session);
    throw new KeyConfigurationError(
      `no key labelled "${settings.keyLabel}" on the HSM token "${settings.tokenLabel}" (PKCS11_KEY_LABEL): removed, or never made (npm run keys -- create-kek)`,
    );
  }
  const { module, session } = opened;
  return {
    kind: 'pkcs11',
    kekId: `pkcs11:${settings.tokenLabel}/${settings.keyLabel}`,
    async wrap(dek, context) {
      const iv = randomBytes(12);
      module.C_EncryptInit(session, gcm(pkcs11js, iv, context), key);
      return Buffer.concat([iv, module.C_Encrypt(session, dek, Buffer.alloc(dek.length + 32))]);
    },
    async unwrap(wrapped, context) {
      module.C_DecryptInit(session, gcm(pkcs11js, wrapped.subarray(0, 12), context), key);
      return module.C_Decrypt(session, wrapped.subarray(12), Buffer.alloc(wrapped.length));
    },
    async close() {
      module.C_CloseSession(session);
    },
  };
}

/** Makes the KEK on the token: AES-256, sensitive, never extractable. Refuses when the label is taken. */
export async function createPkcs11Kek(settings: Pkcs11Settings): Promise<void> {
  const pkcs11js = await pkcs11Binding();
  const opened = openSession(pkcs11js, settings, true);
  try {
    if (findKey(pkcs11js, opened, settings.keyLabel))
      throw new KeyConfigurationError(`a key labelled "${settings.keyLabel}" is already on the token`);
    opened.module.C_GenerateKey(opened.session, { mechanism: pkcs11js.CKM_AES_KEY_GEN }, [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
      { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_AES },
      { type: pkcs11js.CKA_VALUE_LEN, value: 32 },
      { type: pkcs11js.CKA_LABEL, value: settings.keyLabel },
      { type: pkcs11js.CKA_TOKEN, value: true },
      { type: pkcs11js.CKA_PRIVATE, value: true },
      { type: pkcs11js.CKA_SENSITIVE, value: true },
      { type: pkcs11js.CKA_EXTRACTABLE, value: false },
      { type: pkcs11js.CKA_ENCRYPT, value: true },
      { type: pkcs11js.CKA_DECRYPT, value: true },
    ]);
  } finally {
    opened.module.C_CloseSession(opened.session);
  }
}

/** Removes the KEK from the token (tests: "a removed key refuses to start"). */
export async function destroyPkcs11Kek(settings: Pkcs11Settings): Promise<void> {
  const pkcs11js = await pkcs11Binding();
  const opened = openSession(pkcs11js, settings, true);
  try {
    const key = findKey(pkcs11js, opened, settings.keyLabel);
    if (key) opened.module.C_DestroyObject(opened.session, key);
  } finally {
    opened.module.C_CloseSession(opened.session);
  }
}
