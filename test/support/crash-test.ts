import { randomBytes, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxProcessor } from '@paywire/core';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type AdyenFake,
  addAdyenTestAccount,
  adyenTestCard,
  standingCharges,
  startAdyenFake,
} from './adyen.ts';
import { saleBody } from './http.ts';
import { type CoreProcess, coreProcess } from './node-process.ts';
import { freePort } from './ports.ts';
import { newDatabase, newFacadeCredential, newMerchant, startFacade } from './stack.ts';
import { waitFor } from './wait.ts';

/**
 * Fault test, for each connector: keyed sales whose processor answers after 250 ms, with client retries,
 * while core is killed with SIGKILL and restarted five times. However the crashes fall, every key ends with
 * exactly one payment, every answer a key got names the same transaction and that transaction exists, and
 * once the recovery worker has resolved every unknown outcome, the processor's standing authorizations match
 * Paywire's transactions one to one: the sandbox's book (journalled to a file that outlives each core), or
 * the fake Adyen's (in this process; recovery technically cancels what it cannot ask about).
 */
export function defineCrashTest(connector: 'sandbox' | 'adyen'): void {
  const keys = 80;
  const clients = 8;
  const kills = 5;
  const journal = join(tmpdir(), `paywire-sandbox-${randomUUID()}.jsonl`);

  let adyen: AdyenFake | undefined;
  let databaseUrl: string;
  let baseUrl: string;
  let authorization: string;
  let merchantId: number;
  let core: CoreProcess | undefined;
  let closeFacade: () => Promise<void>;

  beforeAll(async () => {
    databaseUrl = await newDatabase('paywire_crash');
    const merchant = await newMerchant(databaseUrl);
    merchantId = merchant.id;
    authorization = merchant.authorization;
    const cardKey = randomBytes(32);
    const coreEnv = {
      DATABASE_URL: databaseUrl,
      CORE_PORT: String(await freePort()),
      CARD_ENCRYPTION_KEY: cardKey.toString('base64'),
      DATABASE_POOL_SIZE: '8',
      SANDBOX_ACQUIRER_LATENCY_MS: '250',
      SANDBOX_ACQUIRER_JOURNAL: journal,
      ADYEN_TIMEOUT_MS: '1000',
      // Adyen steps get a quarter of it (call, repeat, technical cancel, its confirmation) before recovery may step in
      PAYMENT_RECOVERY_AFTER_SECONDS: '4',
    };
    const notification = { username: 'adyen', password: randomBytes(12).toString('hex') };
    let adyenAccountId: number | undefined;
    if (connector === 'adyen') {
      adyen = await startAdyenFake('crash', 250);
      adyenAccountId = await addAdyenTestAccount(databaseUrl, cardKey, {
        merchantId,
        apiKey: adyen.apiKey,
        merchantAccount: adyen.merchantAccount,
        hmacKeyHex: adyen.fake.hmacKeyHex,
        endpoint: adyen.fake.url,
        notification,
      });
    }
    core = coreProcess(coreEnv);
    await core.start('listening');
    const facade = await startFacade(core.trpcUrl, await newFacadeCredential(databaseUrl));
    baseUrl = facade.baseUrl;
    closeFacade = facade.close;
    // A kill during an Adyen call leaves its outcome unknown: recovery technically cancels it, which is done
    // only once Adyen's TECHNICAL_CANCEL notification confirms it. Without notifications such a key stayed
    // in progress for good.
    adyen?.fake.notifyTo({
      url: `${new URL(baseUrl).origin}/processors/adyen/${adyenAccountId}/notifications`,
      ...notification,
    });
  });

  afterAll(async () => {
    await core?.kill();
    await closeFacade?.();
    await adyen?.fake.close();
    await rm(journal, { force: true });
  });

  /** How many authorizations the processor made, and the references of those still standing. */
  function standingAtProcessor(): { authorizations: number; live: string[] } {
    if (adyen) {
      return {
        authorizations: adyen.fake.book.size,
        live: standingCharges(adyen.fake).map((payment) => payment.pspReference),
      };
    }
    const book = [...createSandboxProcessor({ journal }).book.values()];
    return {
      authorizations: book.length,
      live: book.flatMap((entry) =>
        entry.answer.approved && !entry.reversed ? [entry.answer.processorReference] : [],
      ),
    };
  }

  /** What the database holds for a key: its record and its attempts, for a failure's message. */
  async function keyState(key: string): Promise<string> {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const record = await db.query(
        'select outcome is null as in_flight, created_at from idempotency_record where key = $1',
        [key],
      );
      const attempts = await db.query(
        'select state, called_at, resolved_at from payment_attempt where idempotency_key = $1 order by id',
        [key],
      );
      return `record ${JSON.stringify(record.rows)}, attempts ${JSON.stringify(attempts.rows)}`;
    } finally {
      await db.end();
    }
  }

  /** Requests that died with core or met a key still held by a killed transaction, then were retried. */
  let interrupted = 0;

  /**
   * One key's sale, retried on anything but a final answer for up to four minutes (a key stays in progress
   * until recovery has resolved what a kill left: on a machine running two suites at once, one took more
   * than two); every 200's transaction id is kept.
   */
  async function sellUntilAnswered(key: string, seen: Map<string, Set<string>>): Promise<number> {
    const body = JSON.stringify(saleBody({ creditCard: adyenTestCard, amount: 10 }));
    const giveUpAt = Date.now() + 240_000;
    let last = '';
    for (let attempt = 1; Date.now() < giveUpAt; attempt++) {
      try {
        const reply = await fetch(`${baseUrl}/transactions`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json', 'idempotency-key': key },
          body,
        });
        const text = await reply.text();
        const answer = JSON.parse(text) as { transactionId?: string };
        if (reply.status === 200 && answer.transactionId) {
          seen.get(key)?.add(answer.transactionId);
          return attempt;
        }
        if (reply.status !== 503 && reply.status !== 409) throw new Error(`unexpected ${reply.status}`);
        last = `${reply.status} ${text.slice(0, 300)}`;
      } catch (error) {
        if (String(error).includes('unexpected')) throw error;
        last = String(error);
      }
      interrupted++;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`key ${key} never got an answer: ${await keyState(key)}; last reply: ${last}`);
  }

  it(`charges each key exactly once while core is killed and restarted (${connector})`, {
    timeout: 480_000,
  }, async () => {
    const all = Array.from({ length: keys }, () => randomUUID());
    const seen = new Map(all.map((key) => [key, new Set<string>()]));
    const queue = [...all];
    let attempts = 0;
    let loadDone = false;

    const load = Promise.all(
      Array.from({ length: clients }, async () => {
        for (let key = queue.shift(); key; key = queue.shift()) {
          // (await first: `attempts += await …` would read attempts before the wait and lose other clients' counts)
          const first = await sellUntilAnswered(key, seen);
          // Ask again for a key already answered: a retry after a lost reply must replay, not charge.
          const again = Math.random() < 0.5 ? await sellUntilAnswered(key, seen) : 0;
          attempts += first + again;
        }
      }),
    ).finally(() => {
      loadDone = true;
    });

    let killed = 0;
    while (killed < kills && !loadDone) {
      await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 200));
      await core?.kill();
      killed++;
      await core?.start('listening');
    }
    await load;

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const payments = await db.query<{ count: string }>(
      'select count(*) from card_transaction where merchant_id = $1',
      [merchantId],
    );
    await waitFor('the recovery worker to resolve every attempt', async () => {
      const { rows } = await db.query(`select 1 from payment_attempt where state in ('PENDING', 'VOIDING')`);
      return rows.length === 0;
    });
    const recorded = await db.query<{ id: string; processor_reference: string }>(
      'select id, processor_reference from card_transaction where merchant_id = $1',
      [merchantId],
    );
    const voided = await db.query<{ count: string }>(
      `select count(*) from payment_attempt where state = 'VOIDED'`,
    );
    await db.end();
    const { authorizations, live } = standingAtProcessor();

    console.info(
      `fault test: ${keys} keys, ${attempts} requests (${interrupted} interrupted and retried), core killed ${killed} times, ${payments.rows[0]?.count} payments, ${authorizations} authorizations at the processor, ${voided.rows[0]?.count} attempts voided by recovery`,
    );
    expect(killed).toBeGreaterThanOrEqual(2);
    expect(interrupted).toBeGreaterThan(0); // the kills did land on requests in flight
    expect(Number(payments.rows[0]?.count)).toBe(keys);
    for (const ids of seen.values()) expect(ids.size).toBe(1);
    const ids = new Set(recorded.rows.map((row) => row.id));
    for (const answered of seen.values()) for (const id of answered) expect(ids.has(id)).toBe(true);
    expect(recorded.rows.map((row) => row.processor_reference).sort()).toEqual(live.sort());
    if (adyen) expect(adyen.fake.violations).toEqual([]);
  });
}
