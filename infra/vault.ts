import { type CardVault, keyProviderOf, loadKeyEnv, openVault } from '@paywire/core';
import { type EntityManager, manageCallers } from './callers.ts';
import { cardEncryptionKey } from './card-key.ts';
import { provideDatabase } from './database.ts';
import type { LauncherEnv } from './launcher-env.ts';

/**
 * Runs an operator CLI's work against the database with the card vault as core has it (KEY_PROVIDER,
 * docs/keys.md): what it seals goes under the current data key, bound to its row. A failure is printed and
 * the exit code set; the database the CLI started (embedded) is stopped either way.
 */
export async function withCardVault(
  env: LauncherEnv,
  work: (em: EntityManager, vault: CardVault) => Promise<void>,
): Promise<void> {
  const keyEnv = loadKeyEnv({
    ...process.env,
    CARD_ENCRYPTION_KEY: cardEncryptionKey(env.CARD_ENCRYPTION_KEY, env.PAYWIRE_DATA_DIR),
  });
  const provider = await keyProviderOf(keyEnv);
  const { server, databaseUrl } = await provideDatabase(env);
  try {
    await manageCallers(databaseUrl, async (em) =>
      work(em, await openVault(em, provider, keyEnv.CARD_ENCRYPTION_KEY)),
    );
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    await provider.close();
    await server.stop();
  }
}
