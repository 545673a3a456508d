import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { PaywireClient } from '@paywire/client';
import {
  addProcessorAccountInput,
  disableProcessorAccountInput,
  listProcessorAccountsInput,
  type ProcessorAccountView,
  type ProcessorSetup,
  routeProcessorsInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import { withAdminClient } from './admin.ts';
import { loadLauncherEnv } from './launcher-env.ts';

/**
 * npm run processor -- add|list|disable|route ...: merchants' processor accounts, for operators, through core's
 * admin procedures with PAYWIRE_ADMIN_CREDENTIAL at CORE_URL (core seals the credentials). Credentials come
 * from a JSON file or PROCESSOR_CREDENTIALS, never a flag, so an api key stays out of shell history.
 */
const usage = `usage (PAYWIRE_ADMIN_CREDENTIAL and CORE_URL set):
  npm run processor -- add --merchant <id> --name <account> --connector sandbox|adyen --environment test|live
      --merchant-account <code> [--currencies EUR,USD] [--default] [--credentials-file <file.json>]
      (adyen: credentials from --credentials-file or PROCESSOR_CREDENTIALS, JSON:
       {"apiKey","hmacKey","notificationUsername","notificationPassword","liveUrlPrefix"?,"endpoint"?})
  npm run processor -- list --merchant <id>
  npm run processor -- disable --merchant <id> --name <account>
  npm run processor -- route --merchant <id> [--rule account=<name>[,currency=EUR][,brand=VISA][,min=<minor>][,max=<minor>][,percent=30]]...
      (the rules in order replace the merchant's; none clears them)`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    merchant: { type: 'string' },
    name: { type: 'string' },
    connector: { type: 'string' },
    environment: { type: 'string' },
    'merchant-account': { type: 'string' },
    currencies: { type: 'string' },
    default: { type: 'boolean' },
    'credentials-file': { type: 'string' },
    rule: { type: 'string', multiple: true },
  },
});

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}
const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));

function fail(message: string): never {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
}

function parsed<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // Messages only: a value could be a secret.
  fail(result.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('\n'));
}

function credentials(fromEnv: string | undefined): unknown {
  const file = values['credentials-file'];
  try {
    const text = file ? readFileSync(file, 'utf8') : fromEnv;
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the text, which holds the keys.
    return fail(file ? `credentials: cannot read ${file} as JSON` : 'PROCESSOR_CREDENTIALS: not valid JSON');
  }
}

const ruleFields: Record<string, string> = {
  account: 'account',
  currency: 'currency',
  brand: 'cardBrand',
  min: 'minAmountMinor',
  max: 'maxAmountMinor',
  percent: 'percent',
};

/** `account=main,currency=EUR,percent=30` -> a rule's input (numbers as numbers). */
function rule(text: string): Record<string, unknown> {
  return Object.fromEntries(
    text.split(',').map((pair) => {
      const [key = '', value = ''] = pair.split('=', 2);
      const field = Object.hasOwn(ruleFields, key) ? ruleFields[key] : undefined;
      if (!field) fail(`--rule ${text}: unknown condition ${key}`);
      return [field, /^(min|max|percent)$/.test(key) ? Number(value) : value];
    }),
  );
}

function describe(account: ProcessorAccountView): string {
  const flags = [account.default ? 'default' : '', account.enabled ? '' : `disabled ${account.disabledAt}`];
  const key = account.hasCredentials
    ? `credentials (api key ...${account.apiKeyLastFour ?? ''})`
    : 'no credentials';
  return [
    account.id,
    account.name,
    `${account.connector}/${account.environment}`,
    account.merchantAccount,
    account.currencies.join(',') || 'any currency',
    key,
    ...flags.filter(Boolean),
  ].join('\t');
}

function printSetup(setup: ProcessorSetup): void {
  for (const account of setup.accounts) say(describe(account));
  for (const [index, route] of setup.routes.entries()) {
    const { account, ...conditions } = route;
    const when = Object.entries(conditions).map(([key, value]) => `${key}=${value}`);
    say(`route ${index + 1}\t${when.join(' ') || 'any payment'}\t-> ${account}`);
  }
}

type Work = (core: PaywireClient) => Promise<void>;

/** Each command parses its options at once (a usage error reaches nothing) and returns its work. */
const commands: Record<string, (env: ReturnType<typeof loadLauncherEnv>) => Work> = {
  add(env) {
    const input = parsed(addProcessorAccountInput, {
      merchantId: number(values.merchant),
      name: values.name,
      connector: values.connector,
      environment: values.environment,
      merchantAccount: values['merchant-account'],
      currencies: values.currencies?.split(',').filter(Boolean),
      credentials: credentials(env.PROCESSOR_CREDENTIALS),
      default: values.default,
    });
    return async (core) => say(describe(await core.processors.add.mutate(input)));
  },
  list() {
    const input = parsed(listProcessorAccountsInput, { merchantId: number(values.merchant) });
    return async (core) => printSetup(await core.processors.list.query(input));
  },
  disable() {
    const input = parsed(disableProcessorAccountInput, {
      merchantId: number(values.merchant),
      name: values.name,
    });
    return async (core) => say(describe(await core.processors.disable.mutate(input)));
  },
  route() {
    const input = parsed(routeProcessorsInput, {
      merchantId: number(values.merchant),
      rules: (values.rule ?? []).map(rule),
    });
    return async (core) => printSetup(await core.processors.route.mutate(input));
  },
};

const command = positionals[0];
if (command === undefined || !Object.hasOwn(commands, command)) fail(`unknown command ${command ?? ''}`);
const env = loadLauncherEnv();
const work = (commands[command] as (typeof commands)[string])(env);

await withAdminClient(env, work);
