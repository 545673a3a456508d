import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createPaywireClient } from '@paywire/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saleBody } from '../support/http.ts';
import { freePort } from '../support/ports.ts';
import { newDatabase, newFacadeCredential, newMerchant, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The single-process mode (infra/single-process.ts): facade and core in one process, the facade calling
 * core's router through the local link. Each call must carry its own merchant, key and credential checks as
 * over HTTP, however many run at once.
 */
const entry = fileURLToPath(new URL('../../infra/single-process.ts', import.meta.url));

let child: ChildProcess;
let exited: Promise<number | null>;
let base: string;
let coreUrl: string;
let facadeCredential: string;
let first: TestMerchant;
let second: TestMerchant;

beforeAll(async () => {
  const databaseUrl = await newDatabase('paywire_single');
  facadeCredential = await newFacadeCredential(databaseUrl);
  [first, second] = [await newMerchant(databaseUrl), await newMerchant(databaseUrl)];
  const [port, corePort] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${port}`;
  coreUrl = `http://127.0.0.1:${corePort}/trpc`;
  child = spawn(process.execPath, [entry], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      DATABASE_POOL_SIZE: '8',
      HOST: '127.0.0.1',
      PORT: String(port),
      CORE_HOST: '127.0.0.1',
      CORE_PORT: String(corePort),
      CORE_CREDENTIAL: facadeCredential,
      LOG_REQUESTS: 'false',
    },
    stdio: 'ignore',
  });
  exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  // Bounded generously: a loaded 2-core machine can take many seconds to start a Node process.
  await waitFor(
    'the single process to be ready',
    () =>
      fetch(`${base}/readyz`).then(
        (response) => response.ok,
        () => false,
      ),
    60_000,
  );
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await exited;
});

async function post(
  path: string,
  merchant: TestMerchant,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${base}/services/2${path}`, {
    method: 'POST',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function get(path: string, merchant: TestMerchant) {
  const response = await fetch(`${base}/services/2${path}`, {
    headers: { authorization: merchant.authorization },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('facade and core in one process', () => {
  it("keeps each call's merchant apart when many run at once", async () => {
    const merchants = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? first : second));
    const sales = await Promise.all(
      merchants.map((merchant, i) => post('/transactions', merchant, saleBody({ amount: 10 + i }))),
    );
    for (const [i, sale] of sales.entries()) {
      expect(sale.status).toBe(200);
      const owner = merchants[i] as TestMerchant;
      const other = owner === first ? second : first;
      const id = String(sale.body.transactionId);
      expect((await get(`/transactions/${id}`, owner)).body.amount).toBe(10 + i);
      expect((await get(`/transactions/${id}`, other)).status).toBe(404);
    }
  });

  it('replays a keyed sale and refuses the key with another body, as over HTTP', async () => {
    const key = randomUUID();
    const sale = saleBody({ amount: 31.5 });
    const once = await post('/transactions', first, sale, { 'idempotency-key': key });
    const again = await post('/transactions', first, sale, { 'idempotency-key': key });
    expect(once.status).toBe(200);
    expect(again).toEqual(once);
    const changed = await post('/transactions', first, saleBody({ amount: 32 }), { 'idempotency-key': key });
    expect(changed.status).toBe(422);
    expect(changed.body).toMatchObject({ message: [{ code: 60101 }] });
  });

  it("refuses a merchant's wrong password, and core still serves internal callers over HTTP", async () => {
    const wrong = {
      ...first,
      authorization: `Basic ${Buffer.from(`${first.username}:not-it`).toString('base64')}`,
    };
    expect((await get('/sandbox/clock', wrong)).status).toBe(401);
    const internal = createPaywireClient({ url: coreUrl, credential: facadeCredential });
    expect((await internal.callers.whoami.query()).scope).toBe('any-merchant');
    const stranger = createPaywireClient({ url: coreUrl, credential: `pwc_1_${'A'.repeat(43)}` });
    await expect(stranger.callers.whoami.query()).rejects.toThrow();
  });

  it('drains on SIGTERM and exits 0', async () => {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
