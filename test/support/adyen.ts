import { randomBytes } from 'node:crypto';
import { createPaywireClient, type PaywireClient } from '@paywire/client';
import { addProcessorAccountInput } from '@paywire/contracts';
import { addProcessorAccount, fileKeyProvider, openDatabase, openVault, operatorOrigin } from '@paywire/core';
import { expect } from 'vitest';
import { type FakeAdyen, startFakeAdyen } from './fake-adyen/index.ts';
import { type Stack, startStack, type TestMerchant } from './stack.ts';

/** A test card both connectors approve: Adyen's VISA test card with its test CVC; any Luhn-valid card at the sandbox. */
export const adyenTestCard = {
  cardNumber: '4111111111111111',
  securityCode: '737',
  expirationMonth: '03',
  expirationYear: '2030',
};

/** An admin client on the stack's core: what an operator's tooling uses to add processor accounts. */
export async function operatorOf(stack: Stack): Promise<PaywireClient> {
  return createPaywireClient({
    url: stack.core.url,
    credential: await stack.issueCredential({
      name: `operator-${randomBytes(3).toString('hex')}`,
      scope: 'admin',
    }),
  });
}

/** A fake Adyen with the credentials and merchant account it accepts. */
export interface AdyenFake {
  fake: FakeAdyen;
  apiKey: string;
  merchantAccount: string;
}

export async function startAdyenFake(name: string, latencyMs = 0): Promise<AdyenFake> {
  const apiKey = `AQE-${randomBytes(16).toString('hex')}`;
  const merchantAccount = `Paywire${name.replace(/[^a-z0-9]/gi, '')}ECOM`;
  return { fake: await startFakeAdyen({ apiKey, merchantAccount, latencyMs }), apiKey, merchantAccount };
}

export interface FakeAdyenAccount {
  fake: FakeAdyen;
  accountId: number;
  name: string;
  /** Where the fake sends the account's notifications: Paywire's endpoint with the account's credentials. */
  notifyTarget: { url: string; username: string; password: string };
  /** Fails the calling test when Paywire sent the fake anything its published document refuses. */
  expectNoViolations(): void;
}

/**
 * A fake Adyen (test/support/fake-adyen) and a merchant's test-environment account on it, added through the
 * admin procedure; the fake's notifications go to Paywire's endpoint for the account. An account is live
 * when the stack's core points every Adyen account at the fake (CoreOptions.adyenEndpoint).
 */
export async function fakeAdyenAccount(
  stack: Stack,
  operator: PaywireClient,
  merchant: TestMerchant,
  options: {
    name: string;
    environment?: 'test' | 'live';
    default?: boolean;
    latencyMs?: number;
    currencies?: string[];
    /** A fake started already (a live stack is pointed at it before its accounts exist). */
    on?: AdyenFake;
  },
): Promise<FakeAdyenAccount> {
  const { fake, apiKey, merchantAccount } =
    options.on ?? (await startAdyenFake(options.name, options.latencyMs));
  const notification = { username: `adyen-${options.name}`, password: randomBytes(12).toString('hex') };
  const live = options.environment === 'live';
  const account = await operator.processors.add.mutate({
    merchantId: merchant.id,
    name: options.name,
    connector: 'adyen',
    environment: options.environment ?? 'test',
    merchantAccount,
    ...(options.currencies ? { currencies: options.currencies } : {}),
    ...(options.default === undefined ? {} : { default: options.default }),
    credentials: {
      apiKey,
      hmacKey: fake.hmacKeyHex,
      notificationUsername: notification.username,
      notificationPassword: notification.password,
      ...(live ? { liveUrlPrefix: 'paywire-test' } : { endpoint: fake.url }),
    },
  });
  const origin = new URL(stack.baseUrl).origin;
  const notifyTarget = { url: `${origin}/processors/adyen/${account.id}/notifications`, ...notification };
  fake.notifyTo(notifyTarget);
  return {
    fake,
    accountId: account.id,
    name: options.name,
    notifyTarget,
    expectNoViolations: () => expect(fake.violations).toEqual([]),
  };
}

/** What a fake Adyen holds against shoppers: authorisations neither cancelled nor refunded whole. */
export function standingCharges(fake: FakeAdyen) {
  return [...fake.book.values()].filter(
    (payment) =>
      payment.resultCode === 'Authorised' &&
      !payment.cancelled &&
      !(payment.capturedMinor > 0 && payment.refundedMinor >= payment.capturedMinor),
  );
}

/**
 * A live-mode stack whose merchants pay through a live Adyen account on one fake Adyen (core points every
 * Adyen account there): live mode reaches no sandbox. `newMerchant` gives each new merchant its account.
 */
export async function startLiveStack(): Promise<Stack & { adyen: FakeAdyen }> {
  const on = await startAdyenFake('live');
  const stack = await startStack({ mode: 'live', adyenEndpoint: on.fake.url });
  const operator = await operatorOf(stack);
  const withAccount = async (merchant: TestMerchant) => {
    await fakeAdyenAccount(stack, operator, merchant, { name: 'live', environment: 'live', on });
    return merchant;
  };
  await withAccount(stack.merchant);
  return {
    ...stack,
    adyen: on.fake,
    newMerchant: async () => withAccount(await stack.newMerchant()),
    async close() {
      await stack.close();
      await on.fake.close();
    },
  };
}

/**
 * A merchant's test account at an Adyen endpoint, written straight into the database as the operator CLI
 * does (no core needed: a benchmark or a crash test adds it before core starts). Returns the account's id.
 */
export async function addAdyenTestAccount(
  databaseUrl: string,
  cardKey: Buffer,
  account: {
    merchantId: number;
    apiKey: string;
    merchantAccount: string;
    hmacKeyHex: string;
    endpoint: string;
    notification: { username: string; password: string };
  },
): Promise<number> {
  const orm = await openDatabase(databaseUrl, 1);
  try {
    const added = await addProcessorAccount(
      orm.em.fork(),
      await openVault(orm.em.fork(), fileKeyProvider(cardKey), cardKey),
      addProcessorAccountInput.parse({
        merchantId: account.merchantId,
        name: 'adyen',
        connector: 'adyen',
        environment: 'test',
        merchantAccount: account.merchantAccount,
        credentials: {
          apiKey: account.apiKey,
          hmacKey: account.hmacKeyHex,
          notificationUsername: account.notification.username,
          notificationPassword: account.notification.password,
          endpoint: account.endpoint,
        },
      }),
      operatorOrigin('test'),
    );
    return added.id;
  } finally {
    await orm.close();
  }
}
