import { parseArgs } from 'node:util';
import type { PaywireClient } from '@paywire/client';
import {
  type CallerCredentialView,
  type IssuedCallerCredential,
  issueCallerInput,
  revokeCallerInput,
  rotateCallerInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import { withAdminClient } from './admin.ts';
import { bootstrapAdmin } from './callers.ts';
import { provideDatabase } from './database.ts';
import { type LauncherEnv, loadLauncherEnv } from './launcher-env.ts';

/**
 * npm run caller -- issue|list|rotate|revoke ...: core's caller credentials, for operators, through core's admin
 * procedures with PAYWIRE_ADMIN_CREDENTIAL at CORE_URL. `bootstrap` alone works on the database (its owner):
 * it issues the first admin credential, and refuses once one is active.
 */
const usage = `usage (PAYWIRE_ADMIN_CREDENTIAL and CORE_URL set):
  npm run caller -- issue --name <caller> --scope any-merchant|one-merchant|read-only|admin [--merchant <id>] [--expires-in <seconds>]
  npm run caller -- list
  npm run caller -- rotate --name <caller> [--grace <seconds, default 3600>]
  npm run caller -- revoke --id <credential id> | --name <caller>
the first admin credential (DATABASE_URL as the database owner; refused once an admin credential is active):
  npm run caller -- bootstrap --name <operator> [--expires-in <seconds>]`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    scope: { type: 'string' },
    merchant: { type: 'string' },
    'expires-in': { type: 'string' },
    grace: { type: 'string' },
    id: { type: 'string' },
  },
});

const say = (line: string) => process.stdout.write(`${line}\n`);
const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));

function parsed<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  for (const issue of result.error.issues)
    process.stderr.write(`${issue.path.join('.') || 'input'}: ${issue.message}\n`);
  process.stderr.write(`${usage}\n`);
  process.exit(2);
}

function describe(credential: CallerCredentialView): string {
  const merchant = credential.merchantId === null ? '' : ` merchant ${credential.merchantId}`;
  const until = credential.revokedAt
    ? ` revoked ${credential.revokedAt}`
    : credential.expiresAt
      ? ` expires ${credential.expiresAt}`
      : '';
  return `${credential.id}\t${credential.name}\t${credential.scope}${merchant}\t${credential.state}\tcreated ${credential.createdAt}${until}`;
}

function printIssued(issued: IssuedCallerCredential): void {
  say(describe(issued));
  say(`credential (shown once; core keeps only its hash):\n${issued.credential}`);
}

type Work = (core: PaywireClient) => Promise<void>;

/** Each command parses its options at once (a usage error reaches nothing) and returns its work. */
const commands: Record<string, () => Work> = {
  issue() {
    const input = parsed(issueCallerInput, {
      name: values.name,
      scope: values.scope,
      merchantId: number(values.merchant),
      expiresInSeconds: number(values['expires-in']),
    });
    return async (core) => printIssued(await core.callers.issue.mutate(input));
  },
  list: () => async (core) => {
    for (const credential of await core.callers.list.query()) say(describe(credential));
  },
  rotate() {
    const input = parsed(rotateCallerInput, { name: values.name, graceSeconds: number(values.grace) });
    return async (core) => printIssued(await core.callers.rotate.mutate(input));
  },
  revoke() {
    const input = parsed(
      revokeCallerInput,
      values.id === undefined ? { name: values.name } : { id: number(values.id) },
    );
    return async (core) => {
      const revoked = await core.callers.revoke.mutate(input);
      say(`revoked ${revoked.length} credential(s)`);
      for (const credential of revoked) say(describe(credential));
    };
  },
};

/** The one path without an admin credential: the database's owner issues the first one. */
async function bootstrap(env: LauncherEnv): Promise<void> {
  const { name, expiresInSeconds } = parsed(issueCallerInput, {
    name: values.name,
    scope: 'admin',
    expiresInSeconds: number(values['expires-in']),
  });
  process.stderr.write(
    'bootstrap: issuing the first admin credential directly in the database (owner role); audited as this operator\n',
  );
  const { server, databaseUrl } = await provideDatabase(env);
  try {
    printIssued(await bootstrapAdmin(databaseUrl, { name, expiresInSeconds }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

const command = positionals[0];
if (command === undefined || (command !== 'bootstrap' && !Object.hasOwn(commands, command))) {
  process.stderr.write(`${usage}\n`);
  process.exit(2);
}
const env = loadLauncherEnv();
if (command === 'bootstrap') await bootstrap(env);
else await withAdminClient(env, (commands[command] as () => Work)());
