import { createPaywireClient, type PaywireClient } from '@paywire/client';
import type { LauncherEnv } from './launcher-env.ts';

/**
 * The operator CLIs' way to change credentials, accounts and keys: core's admin procedures over tRPC, with
 * the operator's admin credential (`PAYWIRE_ADMIN_CREDENTIAL`) at `CORE_URL`. Core authenticates and audits
 * each call with the operator as actor; database access alone changes nothing (docs/security.md).
 */
async function adminClient(env: LauncherEnv): Promise<PaywireClient> {
  if (!env.PAYWIRE_ADMIN_CREDENTIAL)
    throw new Error(
      'PAYWIRE_ADMIN_CREDENTIAL is not set: the operator CLIs act through core with an admin credential (the first one: npm run caller -- bootstrap)',
    );
  const core = createPaywireClient({
    url: env.CORE_URL,
    credential: env.PAYWIRE_ADMIN_CREDENTIAL,
    maxSockets: 2,
  });
  let scope: string;
  try {
    ({ scope } = await core.callers.whoami.query());
  } catch (error) {
    throw new Error(
      `core at ${env.CORE_URL} refused PAYWIRE_ADMIN_CREDENTIAL or did not answer: ${(error as Error).message}`,
    );
  }
  if (scope !== 'admin')
    throw new Error(
      `PAYWIRE_ADMIN_CREDENTIAL has the ${scope} scope: the operator CLIs need an admin credential`,
    );
  return core;
}

/** Runs an operator CLI's work with the admin client; a failure is printed and the exit code set. */
export async function withAdminClient(
  env: LauncherEnv,
  work: (core: PaywireClient) => Promise<void>,
): Promise<void> {
  try {
    await work(await adminClient(env));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
