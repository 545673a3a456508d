// Issue 12, the example internal service: apps/settlement-report reads a merchant's day from core over
// tRPC with @paywire/client and a read-only credential bound to that merchant, run as its own process.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sepaDebitBody } from '../support/debits.ts';
import { as, client, expectStatus, saleBody } from '../support/http.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

const run = promisify(execFile);

let stack: Stack;
let api: ReturnType<typeof client>;
let merchant: TestMerchant;
let day: string;

/** The report as its operator runs it: `npm run settlement-report -- --date ...`, with its own credential. */
function report(credential: string, ...args: string[]) {
  return run(process.execPath, ['apps/settlement-report/src/main.ts', ...args], {
    env: { ...process.env, CORE_URL: stack.core.url, CORE_CREDENTIAL: credential },
    timeout: 60_000, // a Node process's start on a loaded machine
  });
}

async function sale(amount: number, currency: string, who: TestMerchant): Promise<string> {
  const reply = await api.post('/transactions', saleBody({ amount, currency }), as(who));
  return expectStatus(reply, 200).body.transactionId;
}

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  merchant = await stack.newMerchant();
  const stranger = await stack.newMerchant();

  // A SEPA debit the sandbox bank collects once the merchant's clock passes its due time.
  const debit = expectStatus(await api.post('/alt-transactions', sepaDebitBody(), as(merchant)), 200).body;
  expectStatus(await api.put('/sandbox/clock', { advanceBy: 'PT3M' }, as(merchant)), 200);
  await waitFor('the debit to be collected', async () => {
    const reply = await api.get(`/alt-transactions/${debit.transactionId}`, as(merchant));
    return reply.body.processingInfo?.processingStatus === 'SUCCESS';
  });

  const first = await sale(25.5, 'USD', merchant);
  await sale(10, 'USD', merchant);
  await sale(7.25, 'EUR', merchant);
  expectStatus(await api.post(`/transactions/refund/${first}`, { amount: 5 }, as(merchant)), 200);
  await sale(99, 'USD', stranger); // another merchant's: never in this merchant's report
  day = String(expectStatus(await api.get('/sandbox/clock', as(merchant)), 200).body.now).slice(0, 10);
});

afterAll(async () => {
  await stack?.close();
});

describe('npm run settlement-report', () => {
  it("totals the merchant's card sales, refunds and SEPA debits of the day, per currency", async () => {
    const credential = await stack.issueCredential({
      name: 'settlement-report',
      scope: 'read-only',
      merchantId: merchant.id,
    });
    const { stdout } = await report(credential, '--date', day, '--json');
    const none = { count: 0, amount: '0.00' };
    expect(JSON.parse(stdout)).toEqual({
      date: day,
      currencies: [
        {
          currency: 'EUR',
          cardSales: { count: 1, amount: '7.25' },
          cardRefunds: none,
          sepaSettled: { count: 1, amount: '10.50' },
          sepaFailed: none,
          sepaRefunds: none,
          net: '17.75',
        },
        {
          currency: 'USD',
          cardSales: { count: 2, amount: '35.50' },
          cardRefunds: { count: 1, amount: '5.00' },
          sepaSettled: none,
          sepaFailed: none,
          sepaRefunds: none,
          net: '30.50',
        },
      ],
    });

    const { stdout: text } = await report(credential, '--date', day);
    expect(text.split('\n').slice(0, 4)).toEqual([
      `Settlement report for ${day} (UTC)`,
      expect.stringMatching(
        /^currency +card sales +card refunds +SEPA settled +SEPA failed +SEPA refunds +net$/,
      ),
      expect.stringMatching(/^EUR +1 \/ 7\.25 +0 \/ 0\.00 +1 \/ 10\.50 +0 \/ 0\.00 +0 \/ 0\.00 +17\.75$/),
      expect.stringMatching(/^USD +2 \/ 35\.50 +1 \/ 5\.00 +0 \/ 0\.00 +0 \/ 0\.00 +0 \/ 0\.00 +30\.50$/),
    ]);

    const { stdout: quiet } = await report(credential, '--date', '2001-01-01');
    expect(quiet).toContain('nothing settled');
  });

  it('fails with a clear message when its credential is refused, and prints no figures', async () => {
    const failure = await report(`pwc_1_${'A'.repeat(43)}`, '--date', day).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toBe('');
    expect(failure?.stderr).toContain('a valid caller credential is required');
  });
});
