// A sale starts from the merchant's facts its core last read (merchants/facts.ts, LastKnownFacts) instead of
// reading them again, and its attempt's statement writes only while their version (0046) is still the
// merchant's. Proved here over HTTP: the second sale of a merchant needs no read of its facts, and every kind
// of change to them (fraud rules, the sandbox clock, processor accounts and routes, IPN destinations) is
// obeyed by the very next sale, with one attempt per sale.
import { setTimeout as delay } from 'node:timers/promises';
import { createPaywireClient, type PaywireClient } from '@paywire/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, saleBody } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

let stack: Stack;
let receiver: IpnReceiver;
let api: ReturnType<typeof client>;
let operator: PaywireClient;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  api = client(stack);
  operator = createPaywireClient({
    url: stack.core.url,
    credential: await stack.issueCredential({ name: 'operator', scope: 'admin' }),
  });
}, 120_000);

afterAll(async () => {
  await Promise.all([stack?.close(), receiver?.close()]);
});

const sale = (merchant: TestMerchant, overrides: Record<string, unknown> = {}) =>
  api.post('/transactions', saleBody(overrides), as(merchant));

/** The merchant's sales and attempts, newest sale first: its authorization time and account. */
async function paymentsOf(merchant: TestMerchant) {
  const { rows: sales } = await stack.db.query<{ authorized_at: Date; account: number | null }>(
    `select authorized_at, processor_account_id as account from card_transaction
      where merchant_id = $1 order by id desc`,
    [merchant.id],
  );
  const { rows } = await stack.db.query<{ attempts: number }>(
    'select count(*)::int as attempts from payment_attempt where merchant_id = $1',
    [merchant.id],
  );
  return { sales, attempts: rows[0]?.attempts };
}

/** A merchant whose facts the core has read: it made one sale. */
async function knownMerchant(): Promise<TestMerchant> {
  const merchant = await stack.newMerchant();
  expectStatus(await sale(merchant), 200);
  return merchant;
}

describe("a sale on the merchant's last known facts", () => {
  it('reads no facts for a merchant the core knows: it is answered while their tables are locked', async () => {
    const merchant = await knownMerchant();
    const lock = await stack.db.connect();
    try {
      await lock.query('begin');
      // Every read of the facts reads fraud_settings and processor_route: it would wait for this lock.
      await lock.query('lock table fraud_settings, processor_route in access exclusive mode');
      const answered = await Promise.race([
        sale(merchant).then((reply) => reply.status),
        delay(20_000, 'still waiting'),
      ]);
      expect(answered, 'the sale read the merchant facts it knew').toBe(200);
    } finally {
      await lock.query('rollback');
      lock.release();
    }
    expect((await paymentsOf(merchant)).attempts).toBe(2);
  });

  it('obeys fraud rules set since: the next sale is screened', async () => {
    const merchant = await knownMerchant();
    const rules = { amountLimits: [{ currency: 'USD', maxAmount: 10 }] };
    expectStatus(await api.put('/fraud-settings', rules, as(merchant)), 200);
    const refused = expectStatus(await sale(merchant, { amount: 25.5 }), 400);
    expect(refused.body.message[0]).toMatchObject({ errorName: 'FRAUD_DETECTED', code: 15011 });
    expect(await paymentsOf(merchant)).toMatchObject({ attempts: 1 });
  });

  it('dates the next sale by the sandbox clock advanced since', async () => {
    const merchant = await knownMerchant();
    expectStatus(await api.put('/sandbox/clock', { advanceBy: 'P3D' }, { merchant }), 200);
    expectStatus(await sale(merchant), 200);
    const { sales, attempts } = await paymentsOf(merchant);
    const [later, first] = sales.map((row) => row.authorized_at.getTime());
    expect((later ?? 0) - (first ?? 0)).toBeGreaterThan(3 * 86_400_000 - 60_000);
    expect(attempts).toBe(2);
  });

  it('pays through an account added since, and by the routes set since', async () => {
    const merchant = await knownMerchant();
    const account = (name: string, isDefault: boolean) =>
      operator.processors.add.mutate({
        merchantId: merchant.id,
        name,
        connector: 'sandbox',
        environment: 'test',
        merchantAccount: name,
        default: isDefault,
      });
    const first = await account('first', true);
    expectStatus(await sale(merchant), 200);
    const second = await account('second', false);
    expectStatus(await sale(merchant), 200);
    await operator.processors.route.mutate({ merchantId: merchant.id, rules: [{ account: 'second' }] });
    expectStatus(await sale(merchant), 200);
    const { sales, attempts } = await paymentsOf(merchant);
    expect(sales.map((row) => row.account)).toEqual([second.id, first.id, first.id, null]);
    expect(attempts).toBe(4);
  });

  it('notifies an IPN destination added since', async () => {
    const merchant = await knownMerchant();
    const hook = receiver.newHook();
    const config = hookConfig(hook, ['sendCharge']);
    expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
    const charged = expectStatus(await sale(merchant), 200);
    const [delivered] = await waitFor('the Charge IPN', () => {
      const received = receiver.at(hook);
      return received.length > 0 && received;
    });
    expect(delivered?.params.get('referenceNumber')).toBe(String(charged.body.transactionId));
  });
});
