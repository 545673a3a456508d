import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadCoreEnv, loadKeyEnv } from '../env.ts';

const database = { DATABASE_URL: 'postgres://paywire@localhost/paywire' };

describe('key configuration', () => {
  it('needs CARD_ENCRYPTION_KEY with the file provider (the default), 32 bytes', () => {
    expect(() => loadCoreEnv(database)).toThrow('CARD_ENCRYPTION_KEY: is required with KEY_PROVIDER=file');
    expect(() =>
      loadCoreEnv({ ...database, CARD_ENCRYPTION_KEY: randomBytes(16).toString('base64') }),
    ).toThrow('32 bytes');
    const env = loadCoreEnv({ ...database, CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    expect(env.KEY_PROVIDER).toBe('file');
  });

  it('needs the module, token and PIN with pkcs11, and no CARD_ENCRYPTION_KEY', () => {
    expect(() => loadKeyEnv({ KEY_PROVIDER: 'pkcs11' })).toThrow(
      /PKCS11_MODULE.*PKCS11_TOKEN_LABEL.*PKCS11_PIN/,
    );
    const env = loadKeyEnv({
      KEY_PROVIDER: 'pkcs11',
      PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so',
      PKCS11_TOKEN_LABEL: 'paywire',
      PKCS11_PIN: '246810',
    });
    expect(env.PKCS11_KEY_LABEL).toBe('paywire-kek');
    expect(env.CARD_ENCRYPTION_KEY).toBeUndefined();
  });
});
