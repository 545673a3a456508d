import { parseArgs } from 'node:util';
import {
  type CallerCredentialView,
  type IssuedCallerCredential,
  issueCallerInput,
  revokeCallerInput,
  rotateCallerInput,
} from '@paywire/contracts';
import {
  issueCallerCredential,
  listCallerCredentials,
  revokeCallerCredentials,
  rotateCallerCredential,
} from '@paywire/core';
import type { z } from 'zod';
import { type EntityManager, manageCallers } from './callers.ts';
import { provideDatabase } from './database.ts';
import { loadLauncherEnv } from './launcher-env.ts';
import { cliOperator } from './operator.ts';

/** npm run caller -- issue|list|rotate|revoke ...: core's caller credentials, for operators. */
const usage = `usage:
  npm run caller -- issue --name <caller> --scope any-merchant|one-merchant|read-only|admin [--merchant <id>] [--expires-in <seconds>]
  npm run caller -- list
  npm run caller -- rotate --name <caller> [--grace <seconds, default 3600>]
  npm run caller -- revoke --id <credential id> | --name <caller>`;

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

/** Each command parses its options at once (a usage error opens no database) and returns its work. */
const commands: Record<string, () => (em: EntityManager) => Promise<void>> = {
  issue() {
    const input = parsed(issueCallerInput, {
      name: values.name,
      scope: values.scope,
      merchantId: number(values.merchant),
      expiresInSeconds: number(values['expires-in']),
    });
    return async (em) => printIssued(await issueCallerCredential(em, input, cliOperator()));
  },
  list: () => async (em) => {
    for (const credential of await listCallerCredentials(em)) say(describe(credential));
  },
  rotate() {
    const input = parsed(rotateCallerInput, { name: values.name, graceSeconds: number(values.grace) });
    return async (em) => printIssued(await rotateCallerCredential(em, input, cliOperator()));
  },
  revoke() {
    const input = parsed(
      revokeCallerInput,
      values.id === undefined ? { name: values.name } : { id: number(values.id) },
    );
    return async (em) => {
      const revoked = await revokeCallerCredentials(em, input, cliOperator());
      say(`revoked ${revoked.length} credential(s)`);
      for (const credential of revoked) say(describe(credential));
    };
  },
};

const command = positionals[0];
if (command === undefined || !Object.hasOwn(commands, command)) {
  process.stderr.write(`${usage}\n`);
  process.exit(2);
}
const work = (commands[command] as () => (em: EntityManager) => Promise<void>)();

const env = loadLauncherEnv();
const { server, databaseUrl } = await provideDatabase(env);
try {
  await manageCallers(databaseUrl, work);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await server.stop();
}
