import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { PaywireClient } from '@paywire/client';
import { configureWalletKeysInput, type WalletKeysView } from '@paywire/contracts';
import { withAdminClient } from './admin.ts';
import { loadLauncherEnv } from './launcher-env.ts';

/**
 * npm run wallet-keys -- set|show|remove ...: a merchant's wallet decryption keys (docs/wallets.md), for
 * operators, through core's admin procedures with PAYWIRE_ADMIN_CREDENTIAL at CORE_URL. Private keys are read
 * from PKCS #8 PEM files, never from a flag, so they stay out of shell history; core stores them sealed by the
 * card vault and never prints them.
 */
const usage = `usage (PAYWIRE_ADMIN_CREDENTIAL and CORE_URL set):
  npm run wallet-keys -- set --merchant <id>
      [--google-recipient gateway:<id>|merchant:<id> [--google-gateway-merchant-id <id>] --google-key-file <key.pem>...]
      [--apple-merchant-identifier merchant.<...> --apple-key-file <key.pem>...]
      (a wallet left out keeps its keys; several key files while rotating)
  npm run wallet-keys -- show --merchant <id>
  npm run wallet-keys -- remove --merchant <id> --wallet google|apple`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    merchant: { type: 'string' },
    'google-recipient': { type: 'string' },
    'google-gateway-merchant-id': { type: 'string' },
    'google-key-file': { type: 'string', multiple: true },
    'apple-merchant-identifier': { type: 'string' },
    'apple-key-file': { type: 'string', multiple: true },
    wallet: { type: 'string' },
  },
});

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function fail(message: string): never {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
}

function keyFiles(files: string[] | undefined): string[] {
  return (files ?? []).map((file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return fail(`cannot read ${file}`);
    }
  });
}

function describe(view: WalletKeysView): void {
  const google = view.googlePay;
  const apple = view.applePay;
  say(
    `merchant ${view.merchantId}\tGoogle Pay: ${google ? `${google.recipientId}${google.gatewayMerchantId ? ` (gateway merchant id ${google.gatewayMerchantId})` : ''}, ${google.keys} key(s)` : 'none'}`,
  );
  say(`\tApple Pay: ${apple ? `${apple.merchantIdentifier}, ${apple.keys} key(s)` : 'none'}`);
}

type Work = (core: PaywireClient) => Promise<void>;

const merchantId = Number(values.merchant);

const commands: Record<string, () => Work> = {
  set() {
    const google = values['google-recipient'] ?? values['google-key-file'];
    const apple = values['apple-merchant-identifier'] ?? values['apple-key-file'];
    const result = configureWalletKeysInput.safeParse({
      merchantId,
      ...(google
        ? {
            googlePay: {
              recipientId: values['google-recipient'],
              gatewayMerchantId: values['google-gateway-merchant-id'],
              privateKeys: keyFiles(values['google-key-file']),
            },
          }
        : {}),
      ...(apple
        ? {
            applePay: {
              merchantIdentifier: values['apple-merchant-identifier'],
              privateKeys: keyFiles(values['apple-key-file']),
            },
          }
        : {}),
    });
    // Messages only: a value could be a key.
    if (!result.success)
      fail(result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('\n'));
    return async (core) => describe(await core.wallets.configureKeys.mutate(result.data));
  },
  show() {
    return async (core) => describe(await core.wallets.keys.query({ merchantId }));
  },
  remove() {
    const wallet = values.wallet;
    if (wallet !== 'google' && wallet !== 'apple') fail('--wallet must be google or apple');
    const input = configureWalletKeysInput.parse({
      merchantId,
      [wallet === 'google' ? 'googlePay' : 'applePay']: null,
    });
    return async (core) => describe(await core.wallets.configureKeys.mutate(input));
  },
};

const command = positionals[0];
if (command === undefined || !Object.hasOwn(commands, command)) fail(`unknown command ${command ?? ''}`);
if (!Number.isInteger(merchantId) || merchantId <= 0) fail('--merchant must be a merchant id');
const work = (commands[command] as () => Work)();
const env = loadLauncherEnv();
await withAdminClient(env, work);
