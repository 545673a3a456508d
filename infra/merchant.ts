import { parseArgs } from 'node:util';
import { minimumPasswordLength } from '@paywire/contracts';
import { provideDatabase } from './database.ts';
import { loadLauncherEnv } from './launcher-env.ts';

/** npm run merchant -- create --username U --password P */
const usage = `usage: npm run merchant -- create --username <name> --password <password (${minimumPasswordLength}+ characters)>`;
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { username: { type: 'string' }, password: { type: 'string' } },
});

if (
  positionals[0] !== 'create' ||
  !values.username ||
  !values.password ||
  values.password.length < minimumPasswordLength
) {
  process.stderr.write(`${usage}\n`);
  process.exit(2);
}

// Core's modules load only now: a usage error answers at once.
const { saveMerchant } = await import('./merchants.ts');
const env = loadLauncherEnv();
const { server, databaseUrl } = await provideDatabase(env);
try {
  const id = await saveMerchant(databaseUrl, values.username, values.password);
  process.stdout.write(`merchant ${values.username} saved (id ${id})\n`);
} finally {
  await server.stop();
}
