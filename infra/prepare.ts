import { replaceFacadeCredential } from './callers.ts';
import { migrateDatabase } from './database.ts';
import { loadLauncherEnv } from './launcher-env.ts';
import { ensureSampleCatalogue, saveMerchant } from './merchants.ts';

/**
 * `npm start`'s one-shot setup, in a process of its own so the launcher never loads core's module graph:
 * migrations as the owner (npm start migrates: it is the one process told to) with the app role's grants
 * (DATABASE_APP_ROLE, from the launcher), in sandbox mode the sandbox merchant and its sample catalogue, and
 * a fresh facade credential. Writes one JSON line for the launcher on stdout.
 */
const env = loadLauncherEnv();
const databaseUrl = env.DATABASE_URL; // the launcher's: given, or the embedded server's
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const applied = await migrateDatabase(databaseUrl, env.DATABASE_APP_ROLE);
// Live mode makes no merchant with a known password and no sample product (docs/security.md, Live mode).
const sample =
  env.PAYWIRE_MODE === 'live'
    ? null
    : await ensureSampleCatalogue(
        databaseUrl,
        await saveMerchant(databaseUrl, env.SANDBOX_API_USERNAME, env.SANDBOX_API_PASSWORD),
      );
// A fresh facade credential on every start; the previous start's is revoked, so none outlives its facade.
const facadeCredential = await replaceFacadeCredential(databaseUrl, 'launcher-facade');
process.stdout.write(`${JSON.stringify({ applied, sample, facadeCredential })}\n`);
