import { parseArgs } from 'node:util';
import { minimumPasswordLength, saveMerchantInput } from '@paywire/contracts';
import { withAdminClient } from './admin.ts';
import { loadLauncherEnv } from './launcher-env.ts';

/**
 * npm run merchant -- create: a merchant made, or its password set, through core's `merchants.save` admin
 * procedure with PAYWIRE_ADMIN_CREDENTIAL at CORE_URL; core hashes the password and audits the change as the
 * operator's (`password.set`).
 */
const usage = `usage (PAYWIRE_ADMIN_CREDENTIAL and CORE_URL set):
  npm run merchant -- create --username <name> --password <password (${minimumPasswordLength}+ characters)>
  (a password that begins with "-" is given as --password=<password>)`;
function refuse(problem?: string): never {
  process.stderr.write(`${problem ? `${problem}\n` : ''}${usage}\n`);
  process.exit(2);
}

const parsed = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { username: { type: 'string' }, password: { type: 'string' } },
    });
  } catch (error) {
    return refuse((error as Error).message); // an unknown option, or a value that reads as an option
  }
})();
const input = saveMerchantInput.safeParse({
  username: parsed.values.username,
  password: parsed.values.password,
});
if (parsed.positionals[0] !== 'create' || !input.success) refuse();

await withAdminClient(loadLauncherEnv(), async (core) => {
  const { id } = await core.merchants.save.mutate(input.data);
  process.stdout.write(`merchant ${input.data.username} saved (id ${id})\n`);
});
