import { parseArgs } from 'node:util';
import { provideDatabase } from './database.ts';
import { loadLauncherEnv } from './launcher-env.ts';

/**
 * npm run partner -- link|unlink|list ...: which merchant (a partner) may act for which other merchant
 * (`onbehalfofmid`, docs/conformance.md, Partner users). Audited as the operating system's user.
 */
const usage = `usage:
  npm run partner -- link --partner <merchant id> --merchant <merchant id>
  npm run partner -- unlink --partner <merchant id> --merchant <merchant id>
  npm run partner -- list [--partner <merchant id>]`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { partner: { type: 'string' }, merchant: { type: 'string' } },
});

function id(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value > 0 ? value : Number.NaN;
}

const command = positionals[0];
const partner = id(values.partner);
const merchant = id(values.merchant);
const pairGiven = partner !== undefined && merchant !== undefined && partner > 0 && merchant > 0;
if (
  !(command === 'list' && (partner === undefined || partner > 0)) &&
  !((command === 'link' || command === 'unlink') && pairGiven && partner !== merchant)
) {
  process.stderr.write(`${usage}\n`);
  process.exit(2);
}

// Core's modules load only now: a usage error answers at once.
const { managePartners } = await import('./partners.ts');
const { server, databaseUrl } = await provideDatabase(loadLauncherEnv());
try {
  for (const line of await managePartners(databaseUrl, command, partner, merchant))
    process.stdout.write(`${line}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await server.stop();
}
