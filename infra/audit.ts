import { parseArgs } from 'node:util';
import { openDatabase, verifyAuditTrail } from '@paywire/core';
import { provideDatabase } from './database.ts';
import { loadLauncherEnv } from './launcher-env.ts';

/**
 * npm run audit -- verify: checks every chain of the audit trail, prints each break and each chain's head,
 * and exits 1 when a chain is broken. Keep the heads it prints outside the database: a later run whose heads
 * do not extend them shows a chain rewritten from the start.
 */
const usage = 'usage: npm run audit -- verify';
const { positionals } = parseArgs({ allowPositionals: true, options: {} });
if (positionals[0] !== 'verify' || positionals.length !== 1) {
  process.stderr.write(`${usage}\n`);
  process.exit(2);
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const { server, databaseUrl } = await provideDatabase(loadLauncherEnv());
try {
  const orm = await openDatabase(databaseUrl, 1);
  try {
    const { breaks, heads } = await verifyAuditTrail(orm.em.fork());
    for (const { chain, seq, problem } of breaks) say(`BROKEN\tchain ${chain}\tseq ${seq}\t${problem}`);
    for (const { chain, seq, hash } of heads) say(`head\tchain ${chain}\tseq ${seq}\t${hash}`);
    say(
      breaks.length === 0 ? `verified: ${heads.length} chain(s) intact` : `${breaks.length} break(s) found`,
    );
    if (breaks.length > 0) process.exitCode = 1;
  } finally {
    await orm.close();
  }
} finally {
  await server.stop();
}
