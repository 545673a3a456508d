import type { KeyEnv } from '../env.ts';
import { pkcs11KeyProvider } from './pkcs11.ts';
import { fileKeyProvider, KeyConfigurationError, type KeyProvider } from './provider.ts';

/** The key provider KEY_PROVIDER names, from core's configuration (env.ts validated it). */
export async function keyProviderOf(
  env: Pick<
    KeyEnv,
    | 'KEY_PROVIDER'
    | 'CARD_ENCRYPTION_KEY'
    | 'PKCS11_MODULE'
    | 'PKCS11_TOKEN_LABEL'
    | 'PKCS11_PIN'
    | 'PKCS11_KEY_LABEL'
  >,
): Promise<KeyProvider> {
  if (env.KEY_PROVIDER === 'pkcs11') {
    if (!env.PKCS11_MODULE || !env.PKCS11_TOKEN_LABEL || !env.PKCS11_PIN)
      throw new KeyConfigurationError(
        'KEY_PROVIDER=pkcs11 needs PKCS11_MODULE, PKCS11_TOKEN_LABEL and PKCS11_PIN',
      );
    return pkcs11KeyProvider({
      module: env.PKCS11_MODULE,
      tokenLabel: env.PKCS11_TOKEN_LABEL,
      pin: env.PKCS11_PIN,
      keyLabel: env.PKCS11_KEY_LABEL,
    });
  }
  if (!env.CARD_ENCRYPTION_KEY)
    throw new KeyConfigurationError('KEY_PROVIDER=file needs CARD_ENCRYPTION_KEY');
  return fileKeyProvider(env.CARD_ENCRYPTION_KEY);
}
