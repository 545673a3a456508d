// Processor accounts and routing: admin procedures (processors.*), sealed credentials, the routing order the
// payment pipeline follows, live mode's start check, and the operator CLI (npm run processor).
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createPaywireClient, type PaywireClient, type RouterInputs } from '@paywire/client';
import { type AdyenCredentials, addProcessorAccountInput, routeProcessorsInput } from '@paywire/contracts';
import {
  addProcessorAccount,
  type CardVault,
  disableProcessorAccount,
  openDatabase,
  operatorOrigin,
  routeProcessors,
} from '@paywire/core';
import type { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFacts } from '../../apps/core/src/merchants/facts.ts';
import {
  accountById,
  liveRefusal,
  type PaymentToRoute,
  routeAccounts,
} from '../../apps/core/src/processors/accounts/routing.ts';
import {
  newDatabase,
  newMerchant,
  operatorCliEnv,
  type Stack,
  startStack,
  type TestMerchant,
} from '../support/stack.ts';

const run = promisify(execFile);

let stack: Stack;
let operator: PaywireClient;
/** The operator CLI's origin, for the service code it runs. */
const cliOrigin = operatorOrigin('test');
let orm: MikroORM;
let vault: CardVault;

beforeAll(async () => {
  stack = await startStack();
  operator = createPaywireClient({
    url: stack.core.url,
    credential: await stack.issueCredential({ name: 'operator', scope: 'admin' }),
  });
  orm = await openDatabase(stack.databaseUrl, 2);
  vault = stack.core.services.vault;
});

afterAll(async () => {
  await orm?.close();
  await stack?.close();
});

const apiKey = 'AQE1hmfxKo3NaxZDw0m_secret_api_key_7f3a';
const credentials = (extra: Partial<AdyenCredentials> = {}): AdyenCredentials => ({
  apiKey,
  hmacKey: 'ab'.repeat(32),
  notificationUsername: 'adyen-notifier',
  notificationPassword: 'notification-password-1',
  ...extra,
});

type AddInput = RouterInputs['processors']['add'];
const adyen = (merchant: TestMerchant, name: string, extra: Partial<AddInput> = {}): AddInput => ({
  merchantId: merchant.id,
  name,
  connector: 'adyen',
  environment: 'test',
  merchantAccount: 'PaywireECOM',
  credentials: credentials(),
  ...extra,
});

const payment = (extra: Partial<PaymentToRoute> = {}): PaymentToRoute => ({
  currency: 'EUR',
  brand: 'VISA',
  amountMinor: 1000,
  roll: 50,
  ...extra,
});

/** The interface error body core puts in a refused call's data, with its HTTP status. */
async function refusal(call: Promise<unknown>) {
  const error = (await call.then(
    () => expect.unreachable('the call succeeded'),
    (error: unknown) => error,
  )) as TRPCClientError<never>;
  const data = error.data as unknown as {
    httpStatus: number;
    paywire: { message: { errorName: string; description: string; invalidProperty?: { name: string } }[] };
  };
  return { status: data.httpStatus, ...data.paywire.message[0] };
}

async function accountRows(merchant: TestMerchant) {
  const { rows } = await stack.db.query<{ name: string; sealed_credentials: string | null }>(
    'select name, sealed_credentials from processor_account where merchant_id = $1 order by id',
    [merchant.id],
  );
  return rows;
}

describe('processors.add, list and disable', () => {
  it('adds an adyen account whose credentials are sealed in the row and never answered', async () => {
    const merchant = await stack.newMerchant();
    const added = await operator.processors.add.mutate(
      adyen(merchant, 'adyen-eu', { currencies: ['EUR', 'GBP'] }),
    );
    expect(added).toMatchObject({
      name: 'adyen-eu',
      connector: 'adyen',
      environment: 'test',
      currencies: ['EUR', 'GBP'],
      default: true, // the merchant's first account
      enabled: true,
      hasCredentials: true,
      apiKeyLastFour: '7f3a',
    });
    const [row] = await accountRows(merchant);
    expect(row?.sealed_credentials).toMatch(/^v2:\d+:/);
    for (const secret of [apiKey, 'notification-password-1', 'ab'.repeat(32)])
      expect(row?.sealed_credentials).not.toContain(secret);

    const listed = await operator.processors.list.query({ merchantId: merchant.id });
    expect(listed.accounts).toEqual([added]);
    for (const answer of [added, listed]) {
      const text = JSON.stringify(answer);
      expect(text).not.toContain(apiKey);
      expect(text).not.toContain('notification-password-1');
      expect(text).not.toContain('hmacKey');
    }
    expect(stack.logs.join('\n')).not.toContain(apiKey);
  });

  it('adds a sandbox account without credentials; a new default replaces the old one', async () => {
    const merchant = await stack.newMerchant();
    await operator.processors.add.mutate(adyen(merchant, 'first'));
    const sandbox = await operator.processors.add.mutate({
      merchantId: merchant.id,
      name: 'play',
      connector: 'sandbox',
      environment: 'test',
      merchantAccount: 'any label',
      default: true,
    });
    expect(sandbox).toMatchObject({
      hasCredentials: false,
      apiKeyLastFour: null,
      default: true,
      currencies: [],
    });
    const { accounts } = await operator.processors.list.query({ merchantId: merchant.id });
    expect(accounts.map((account) => [account.name, account.default])).toEqual([
      ['first', false],
      ['play', true],
    ]);
  });

  it('disables an account (again: no change; a disabled default yields); an unknown one is PROCESSOR_ACCOUNT_NOT_FOUND', async () => {
    const merchant = await stack.newMerchant();
    await operator.processors.add.mutate(adyen(merchant, 'old'));
    const disabled = await operator.processors.disable.mutate({ merchantId: merchant.id, name: 'old' });
    expect(disabled).toMatchObject({ enabled: false, disabledAt: expect.any(String) });
    expect(await operator.processors.disable.mutate({ merchantId: merchant.id, name: 'old' })).toEqual(
      disabled,
    );
    // A disabled default takes no payments: the next account added takes its place.
    expect(await operator.processors.add.mutate(adyen(merchant, 'new'))).toMatchObject({ default: true });
    const { accounts } = await operator.processors.list.query({ merchantId: merchant.id });
    expect(accounts.map((account) => [account.name, account.default])).toEqual([
      ['old', false],
      ['new', true],
    ]);
    expect(
      await refusal(operator.processors.disable.mutate({ merchantId: merchant.id, name: 'nope' })),
    ).toMatchObject({ status: 404, errorName: 'PROCESSOR_ACCOUNT_NOT_FOUND' });
  });

  it('refuses bad input with a 400 naming the field, and writes nothing', async () => {
    const merchant = await stack.newMerchant();
    await operator.processors.add.mutate(adyen(merchant, 'taken'));
    const cases: [Partial<AddInput> & Record<string, unknown>, string][] = [
      [{ connector: 'worldpay' as 'adyen' }, 'connector'],
      [{ credentials: undefined }, 'credentials'],
      [{ credentials: { ...credentials(), hmacKey: 'not-hex' } }, 'credentials.hmacKey'],
      [{ credentials: { ...credentials(), apiKey: '' } }, 'credentials.apiKey'],
      [{ currencies: ['EUR', 'XXX'] }, 'currencies.1'],
      [{ connector: 'sandbox', environment: 'live', credentials: undefined }, 'environment'],
      [{ connector: 'sandbox' }, 'credentials'],
      [{ environment: 'live' }, 'credentials.liveUrlPrefix'],
      [{ credentials: credentials({ liveUrlPrefix: 'abc-Paywire' }) }, 'credentials.liveUrlPrefix'],
      [
        {
          environment: 'live',
          credentials: credentials({ liveUrlPrefix: 'x', endpoint: 'http://127.0.0.1:1' }),
        },
        'credentials.endpoint',
      ],
      [{ name: 'Bad Name' }, 'name'],
      [{ name: 'taken' }, 'name'],
      [{ merchantId: 999_999 }, 'merchantId'],
    ];
    for (const [change, field] of cases) {
      const refused = await refusal(operator.processors.add.mutate({ ...adyen(merchant, 'new'), ...change }));
      expect(refused, field).toMatchObject({
        status: 400,
        errorName: 'VALIDATION_GENERAL_FAILURE',
        invalidProperty: { name: field },
      });
      expect(JSON.stringify(refused), field).not.toContain(apiKey);
    }
    expect((await accountRows(merchant)).map((row) => row.name)).toEqual(['taken']);
  });

  it('is for admin credentials only', async () => {
    const facade = createPaywireClient({ url: stack.core.url, credential: stack.facadeCredential });
    const refused = await refusal(facade.processors.list.query({ merchantId: stack.merchant.id }));
    expect(refused).toMatchObject({ status: 403, errorName: 'FORBIDDEN' });
  });
});

/** Routes a payment as a sale does: by the routing table its merchant's facts carry, read from the database. */
async function routeFromFacts(merchantId: number, toRoute: PaymentToRoute, mode: 'sandbox' | 'live') {
  const { routing } = await loadFacts(orm.em.fork(), merchantId);
  return routeAccounts(vault, merchantId, routing, toRoute, mode);
}

describe('processors.route and routing', () => {
  let merchant: TestMerchant;
  const route = async (extra: Partial<PaymentToRoute> = {}, mode: 'sandbox' | 'live' = 'sandbox') =>
    (await routeFromFacts(merchant.id, payment(extra), mode)).map((account) => account.name);

  beforeAll(async () => {
    merchant = await stack.newMerchant();
    await operator.processors.add.mutate(adyen(merchant, 'fallback', { currencies: ['EUR', 'USD'] }));
    await operator.processors.add.mutate(adyen(merchant, 'amex'));
    await operator.processors.add.mutate(adyen(merchant, 'big', { currencies: ['EUR'] }));
    await operator.processors.add.mutate(adyen(merchant, 'split-a'));
    await operator.processors.add.mutate(adyen(merchant, 'split-b'));
    await operator.processors.add.mutate(adyen(merchant, 'usd-only', { currencies: ['USD'] }));
    const setup = await operator.processors.route.mutate({
      merchantId: merchant.id,
      rules: [
        { account: 'amex', cardBrand: 'AMEX' },
        { account: 'big', currency: 'EUR', minAmountMinor: 100_000 },
        { account: 'split-a', percent: 30 },
        { account: 'split-b', percent: 20 },
        { account: 'usd-only' },
      ],
    });
    expect(setup.routes[1]).toEqual({ account: 'big', currency: 'EUR', minAmountMinor: 100_000 });
  });

  it('sends a payment to the first matching rule, then the other matching rules, then the default', async () => {
    expect(await route({ brand: 'AMEX' })).toEqual(['amex', 'split-a', 'split-b', 'fallback']);
    expect(await route({ amountMinor: 100_000 })).toEqual(['big', 'split-a', 'split-b', 'fallback']);
    expect(await route({ amountMinor: 99_999, roll: 0 })).toEqual(['split-a', 'split-b', 'fallback']);
  });

  it('splits by percentage one rule after another: 30% to A, the next 20% to B, the rest onward', async () => {
    expect(await route({ roll: 29 })).toEqual(['split-a', 'split-b', 'fallback']);
    expect(await route({ roll: 30 })).toEqual(['split-b', 'split-a', 'fallback']);
    expect(await route({ roll: 49 })).toEqual(['split-b', 'split-a', 'fallback']);
    // usd-only is next for rolls 50-99, but refuses EUR: the default's currencies decide too
    expect(await route({ roll: 50 })).toEqual(['split-a', 'split-b', 'fallback']);
    expect(await route({ roll: 50, currency: 'USD' })).toEqual([
      'usd-only',
      'split-a',
      'split-b',
      'fallback',
    ]);
    expect(await route({ roll: 50, currency: 'GBP' })).toEqual(['split-a', 'split-b']);
  });

  it('skips disabled accounts and those of the other environment; accountById still finds them', async () => {
    expect(await route({ roll: 50 }, 'live')).toEqual([]);
    const other = await stack.newMerchant();
    await operator.processors.add.mutate(adyen(other, 'test-one'));
    await operator.processors.add.mutate(
      adyen(other, 'live-one', {
        environment: 'live',
        credentials: credentials({ liveUrlPrefix: 'abc-Shop' }),
      }),
    );
    await operator.processors.route.mutate({ merchantId: other.id, rules: [{ account: 'live-one' }] });
    const [live] = await routeFromFacts(other.id, payment(), 'live');
    expect(live).toMatchObject({ name: 'live-one', environment: 'live', credentials: { apiKey } });
    expect((await routeFromFacts(other.id, payment(), 'sandbox')).map((account) => account.name)).toEqual([
      'test-one',
    ]);
    const { id } = await operator.processors.disable.mutate({ merchantId: other.id, name: 'test-one' });
    expect(await routeFromFacts(other.id, payment(), 'sandbox')).toEqual([]);
    // Its payments' captures, refunds and notifications still find it; another merchant's look does not.
    expect(await accountById(orm.em.fork(), vault, other.id, id)).toMatchObject({
      name: 'test-one',
      credentials: { apiKey },
    });
    expect(await accountById(orm.em.fork(), vault, merchant.id, id)).toBeNull();
    expect(await accountById(orm.em.fork(), vault, other.id, null)).toMatchObject({
      id: null,
      connector: 'sandbox',
    });
  });

  it('pays a merchant without accounts through the built-in sandbox in sandbox mode, nowhere in live mode', async () => {
    const bare = await stack.newMerchant();
    expect(await routeFromFacts(bare.id, payment(), 'sandbox')).toEqual([
      {
        id: null,
        name: 'sandbox',
        connector: 'sandbox',
        environment: 'test',
        merchantAccount: 'sandbox',
        credentials: null,
      },
    ]);
    expect(await routeFromFacts(bare.id, payment(), 'live')).toEqual([]);
  });

  it('refuses rules naming an unknown or disabled account, or a currency the account refuses; keeps the old rules', async () => {
    const before = await operator.processors.list.query({ merchantId: merchant.id });
    const cases: [RouterInputs['processors']['route']['rules'], string][] = [
      [[{ account: 'fallback' }, { account: 'nope' }], 'rules.1.account'],
      [[{ account: 'usd-only', currency: 'EUR' }], 'rules.0.currency'],
      [[{ account: 'big', minAmountMinor: 10 }], 'rules.0.minAmountMinor'],
      [
        [{ account: 'big', currency: 'EUR', minAmountMinor: 10, maxAmountMinor: 9 }],
        'rules.0.maxAmountMinor',
      ],
      [[{ account: 'big', percent: 0 }], 'rules.0.percent'],
    ];
    for (const [rules, field] of cases) {
      expect(
        await refusal(operator.processors.route.mutate({ merchantId: merchant.id, rules })),
        field,
      ).toMatchObject({
        status: 400,
        invalidProperty: { name: field },
      });
    }
    const other = await stack.newMerchant();
    await operator.processors.add.mutate(adyen(other, 'gone'));
    await operator.processors.disable.mutate({ merchantId: other.id, name: 'gone' });
    expect(
      await refusal(operator.processors.route.mutate({ merchantId: other.id, rules: [{ account: 'gone' }] })),
    ).toMatchObject({ status: 400, description: 'rules.0.account: is disabled' });
    expect(await operator.processors.list.query({ merchantId: merchant.id })).toEqual(before);
  });
});

describe('liveRefusal', () => {
  it('names a merchant whose route reaches a sandbox account; one without accounts is no reason', async () => {
    const databaseUrl = await newDatabase(); // its own merchants only
    const own = await openDatabase(databaseUrl, 2);
    try {
      const shop = await newMerchant(databaseUrl);
      const add = (input: AddInput) =>
        addProcessorAccount(own.em.fork(), vault, addProcessorAccountInput.parse(input), cliOrigin);
      const route = (rules: RouterInputs['processors']['route']['rules']) =>
        routeProcessors(
          own.em.fork(),
          vault,
          routeProcessorsInput.parse({ merchantId: shop.id, rules }),
          cliOrigin,
        );
      const refused = () => liveRefusal(own.em.fork());
      const toSandbox = `live mode refused: merchant ${shop.id} (${shop.username}) routes to the sandbox account(s) play`;

      expect(await refused()).toBeNull(); // no account: live card payments are refused, not sent anywhere
      const live = { environment: 'live', credentials: credentials({ liveUrlPrefix: 'abc-Shop' }) } as const;
      await add(adyen(shop, 'live-one', live));
      await add({ ...adyen(shop, 'play'), connector: 'sandbox', credentials: undefined, default: false });
      expect(await refused()).toBeNull(); // a sandbox account on no route
      await route([{ account: 'play', cardBrand: 'AMEX' }, { account: 'live-one' }]);
      expect(await refused()).toBe(toSandbox);
      await route([{ account: 'live-one' }]);
      expect(await refused()).toBeNull();
      await disableProcessorAccount(
        own.em.fork(),
        vault,
        { merchantId: shop.id, name: 'live-one' },
        cliOrigin,
      );
      await add({
        ...adyen(shop, 'play-default'),
        connector: 'sandbox',
        credentials: undefined,
        default: true,
      });
      expect(await refused()).toBe(
        `live mode refused: merchant ${shop.id} (${shop.username}) routes to the sandbox account(s) play-default`,
      );
    } finally {
      await own.close();
    }
  });
});

describe('npm run processor', () => {
  it('adds an adyen account with credentials from a file, and lists it without them', async () => {
    const merchant = await stack.newMerchant();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'paywire-')), 'adyen.json');
    writeFileSync(file, JSON.stringify(credentials()), { mode: 0o600 });
    const operator = await operatorCliEnv(stack); // through core's admin procedures
    const cli = (...args: string[]) =>
      run(process.execPath, ['infra/processor.ts', ...args], {
        env: { ...process.env, ...operator },
      });
    const merchantId = String(merchant.id);
    const added = await cli(
      'add',
      ...['--merchant', merchantId, '--name', 'cli-adyen', '--connector', 'adyen', '--environment', 'test'],
      ...['--merchant-account', 'PaywireECOM', '--currencies', 'EUR,USD', '--credentials-file', file],
    );
    expect(added.stdout).toMatch(
      /\tcli-adyen\tadyen\/test\tPaywireECOM\tEUR,USD\tcredentials \(api key \.\.\.7f3a\)\tdefault/,
    );
    await cli(
      'route',
      '--merchant',
      merchantId,
      '--rule',
      'account=cli-adyen,currency=USD,min=100,percent=40',
    );
    const listed = await cli('list', '--merchant', merchantId);
    expect(listed.stdout).toContain('cli-adyen');
    expect(listed.stdout).toContain('route 1\tcurrency=USD minAmountMinor=100 percent=40\t-> cli-adyen');
    expect(listed.stdout + added.stdout + added.stderr).not.toContain(apiKey);
    // The service the procedures run: the account is usable, its credentials open under core's key.
    const [account] = await routeFromFacts(merchant.id, payment(), 'sandbox');
    expect(account?.credentials).toEqual(credentials());
    // one at a time: a refusal not yet awaited would be an unhandled rejection
    await expect(
      cli('add', '--merchant', merchantId, '--name', 'x', '--connector', 'adyen'),
    ).rejects.toMatchObject({
      code: 2,
    });
    await expect(
      cli('route', '--merchant', merchantId, '--rule', 'account=cli-adyen,brnd=VISA'),
    ).rejects.toMatchObject({ code: 2 });
  }, 60_000); // six runs of the CLI, each a process loading core
});
