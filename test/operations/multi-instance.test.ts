import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { type RunningCore, startCore } from '@paywire/core';
import { createLogger } from '@paywire/observability';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, type Reply, saleBody } from '../support/http.ts';
import { hookConfig, type IpnReceiver, type ReceivedIpn, startIpnReceiver } from '../support/ipn-receiver.ts';
import { type Stack, startFacade, startStack, type TestFacade, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Horizontal scale (DEVELOPERS.md, Tests): two cores on ONE database, each behind a facade of its own,
// coordinated only through PostgreSQL (idempotency locks, FOR UPDATE SKIP LOCKED, the shared pg-boss
// queues). Traffic goes over real HTTP through both facades; outcomes are read in the rows.
// ---------------------------------------------------------------------------------------------------------

/** The sandbox IBANs (docs/conformance.md, SEPA direct debit) and what the bank makes of them. */
const SEPA_OUTCOMES = [
  { iban: 'DE89370400440532013000', final: 'SUCCESS', settled: 'Charge', returned: false },
  { iban: 'DE62370400440532013001', final: 'FAIL', settled: 'Decline', returned: false },
  { iban: 'DE35370400440532013002', final: 'REFUNDED', settled: 'Charge', returned: true },
] as const;

// --- two cores, two facades, one database ------------------------------------------------------------------

let stack: Stack;
let secondCore: RunningCore;
let secondFacade: TestFacade;
let receiver: IpnReceiver;
let db: pg.Pool;
/** Facade A (the stack's, in front of the first core) and facade B (in front of the second core). */
let viaA: ReturnType<typeof client>;
let viaB: ReturnType<typeof client>;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  secondCore = await startCore({
    ...stack.coreOptions,
    log: createLogger('core-second', (line) => stack.logs.push(line)),
  });
  secondFacade = await startFacade(secondCore.url, stack.facadeCredential, (line) => stack.logs.push(line));
  viaA = client(stack);
  viaB = client({ ...stack, baseUrl: secondFacade.baseUrl });
  db = stack.db;
});

afterAll(async () => {
  await secondFacade?.close();
  await secondCore?.close();
  await stack?.close();
  await receiver?.close();
});

// --- helpers ------------------------------------------------------------------------------------------------

async function count(sql: string, params: unknown[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select (${sql})::int as n`, params);
  return rows[0]?.n ?? Number.NaN;
}

/** A new merchant whose every event of `events` goes to the receiver at `path`. */
async function merchantWithIpn(path: string, events: string[]): Promise<TestMerchant> {
  const merchant = await stack.newMerchant();
  const config = hookConfig(
    `${receiver.origin}${path}`,
    events.map((event) => `send${event}`),
  );
  expectStatus(await viaA.post('/notification-config', config, as(merchant)), 200);
  return merchant;
}

interface DeliveryRow {
  id: string;
  event: string;
  reference_number: string;
  state: string;
  attempts: number;
}

const deliveries = async (merchant: TestMerchant) =>
  (
    await db.query<DeliveryRow>(
      'select id, event, reference_number, state, attempts from ipn_delivery where merchant_id = $1 order by id',
      [merchant.id],
    )
  ).rows;

/**
 * Waits until every delivery row of the merchant is delivered: no worker of either core claims a delivered
 * row again, so what the receiver holds is all it will ever get.
 */
async function allDeliveriesFinished(merchant: TestMerchant, expected: number): Promise<DeliveryRow[]> {
  return waitFor(
    `${expected} deliveries to be made`,
    async () => {
      const rows = await deliveries(merchant);
      return rows.length === expected && rows.every((row) => row.state === 'delivered') ? rows : undefined;
    },
    15_000,
    200,
  );
}

/** Each webhook-id once, and as many requests as delivery rows, each naming its row's reference. */
function expectEachDeliveredOnce(received: ReceivedIpn[], rows: DeliveryRow[]): void {
  const ids = received.map((request) => String(request.headers['webhook-id']));
  expect(ids.length - new Set(ids).size, 'webhook-ids received more than once').toBe(0);
  expect(received).toHaveLength(rows.length);
  expect(new Set(ids)).toEqual(new Set(rows.map((row) => `ipn_${row.id}`)));
  for (const row of rows) {
    const request = received.find((candidate) => String(candidate.headers['webhook-id']) === `ipn_${row.id}`);
    expect(request?.params.get('referenceNumber')).toBe(row.reference_number);
  }
}

// ---------------------------------------------------------------------------------------------------------

describe('two cores on one database', () => {
  it('both cores answer for the same merchant through their own facades', async () => {
    const a = expectStatus(await viaA.post('/transactions', saleBody()), 200).body;
    const b = expectStatus(await viaB.post('/transactions', saleBody()), 200).body;
    // Each sees what the other wrote: the rows are shared, not the processes.
    expect(expectStatus(await viaB.get(`/transactions/${a.transactionId}`), 200).body.transactionId).toBe(
      a.transactionId,
    );
    expect(expectStatus(await viaA.get(`/transactions/${b.transactionId}`), 200).body.transactionId).toBe(
      b.transactionId,
    );
  });

  it("obeys, in one core, a merchant's change made through the other, at its next sale", async () => {
    const merchant = await stack.newMerchant();
    // Core B knows the merchant's facts (merchants/facts.ts): its next sale starts from them.
    expectStatus(await viaB.post('/transactions', saleBody(), as(merchant)), 200);
    const rules = { amountLimits: [{ currency: 'USD', maxAmount: 10 }] };
    expectStatus(await viaA.put('/fraud-settings', rules, as(merchant)), 200);
    const refused = expectStatus(await viaB.post('/transactions', saleBody(), as(merchant)), 400);
    expect(refused.body.message[0]).toMatchObject({ errorName: 'FRAUD_DETECTED', code: 15011 });
    expect(await count('select count(*) from payment_attempt where merchant_id = $1', [merchant.id])).toBe(1);
  });

  it('runs a keyed sale sent through both facades at once exactly once', async () => {
    const merchant = await stack.newMerchant();
    const keys = Array.from({ length: 40 }, () => randomUUID());
    let inProgress = 0;

    /** A keyed sale; a 409 60102 (the other instance holds the key) is retried until an answer is stored. */
    async function keyedSale(api: ReturnType<typeof client>, key: string, amount: number): Promise<Reply> {
      for (let attempt = 1; ; attempt++) {
        const reply = await api.post(
          '/transactions',
          saleBody({ amount }),
          as(merchant, { headers: { 'idempotency-key': key } }),
        );
        if (reply.status !== 409) return reply;
        expect(Number(reply.body?.message?.[0]?.code), reply.text).toBe(60102);
        inProgress++;
        if (attempt >= 100) throw new Error(`key ${key} still in progress after ${attempt} tries`);
        await delay(50);
      }
    }

    const pairs = await Promise.all(
      keys.map((key, index) => {
        const amount = 10 + index; // a different sale per key
        return Promise.all([keyedSale(viaA, key, amount), keyedSale(viaB, key, amount)]);
      }),
    );

    for (const [index, [a, b]] of pairs.entries()) {
      expectStatus(a, 200);
      expectStatus(b, 200);
      expect(a.body.transactionId).toMatch(/^\d+$/);
      expect(b.body.transactionId, `key ${keys[index]}`).toBe(a.body.transactionId);
      expect(b.text).toBe(a.text); // the stored answer is the answer
      expect(a.body.amount).toBe(10 + index);
    }
    expect(new Set(pairs.map(([a]) => a.body.transactionId)).size).toBe(keys.length);
    expect(await count('select count(*) from card_transaction where merchant_id = $1', [merchant.id])).toBe(
      keys.length,
    );
    expect(await count('select count(*) from idempotency_record where merchant_id = $1', [merchant.id])).toBe(
      keys.length,
    );
    console.info(`multi-instance idempotency: ${keys.length} keys, ${inProgress} answers of 409 retried`);
  });

  it('settles SEPA debits made through both facades once each', async () => {
    const path = '/ipn/sepa';
    const merchant = await merchantWithIpn(path, ['ChargePending', 'Charge', 'Decline', 'Refund']);
    const planned = Array.from({ length: 30 }, (_, index) => ({
      outcome: SEPA_OUTCOMES[index % SEPA_OUTCOMES.length] ?? SEPA_OUTCOMES[0],
      amountMinor: 1000 + index,
      api: index < 15 ? viaA : viaB,
    }));
    const debits = await Promise.all(
      planned.map(async (plan) => {
        const body = {
          sepaDirectDebitTransaction: { iban: plan.outcome.iban },
          payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
          amount: plan.amountMinor / 100,
          currency: 'EUR',
          authorizedByShopper: true,
        };
        const created = expectStatus(await plan.api.post('/alt-transactions', body, as(merchant)), 200).body;
        expect(created.processingInfo.processingStatus).toBe('PENDING');
        return { ...plan, id: String(created.transactionId) };
      }),
    );
    expect(new Set(debits.map((debit) => debit.id)).size).toBe(debits.length);

    expectStatus(await viaB.put('/sandbox/clock', { advanceBy: 'PT10M' }, as(merchant)), 200);
    const finals = new Set<string>(SEPA_OUTCOMES.map((outcome) => outcome.final));
    await waitFor(
      'every debit to reach its final state',
      async () => {
        const statuses = await Promise.all(
          debits.map(async (debit, index) => {
            const reply = await (index % 2 === 0 ? viaA : viaB).get(
              `/alt-transactions/${debit.id}`,
              as(merchant),
            );
            return expectStatus(reply, 200).body.processingInfo.processingStatus as string;
          }),
        );
        return statuses.every((status) => finals.has(status));
      },
      15_000,
      250,
    );

    // The state each IBAN leads to, read through the other facade than the one that made the debit.
    for (const debit of debits) {
      const other = debit.api === viaA ? viaB : viaA;
      const body = expectStatus(await other.get(`/alt-transactions/${debit.id}`, as(merchant)), 200).body;
      expect(body.processingInfo.processingStatus, `debit ${debit.id} of ${debit.outcome.iban}`).toBe(
        debit.outcome.final,
      );
    }

    // Returned once: one bank return of the whole amount per returned debit, none for the others.
    const { rows: refunds } = await db.query<{ debit_id: string; amount_minor: number; returned: boolean }>(
      `select r.debit_id::text, r.amount_minor::int, r.returned
         from sepa_refund r where r.merchant_id = $1 order by r.debit_id`,
      [merchant.id],
    );
    const expectedRefunds = debits
      .filter((debit) => debit.outcome.returned)
      .map((debit) => ({ debit_id: debit.id, amount_minor: debit.amountMinor, returned: true }))
      .sort((a, b) => Number(a.debit_id) - Number(b.debit_id));
    expect(refunds).toEqual(expectedRefunds);

    // Reported once: per debit exactly one ChargePending, one Charge or Decline, and one Refund if returned.
    const { rows: events } = await db.query<{ reference_number: string; event: string; n: number }>(
      `select reference_number, event, count(*)::int as n from ipn_delivery
        where merchant_id = $1 group by reference_number, event`,
      [merchant.id],
    );
    const key = (reference: string, event: string) => `${reference} ${event}`;
    const expectedEvents = new Map<string, number>();
    for (const debit of debits) {
      expectedEvents.set(key(debit.id, 'ChargePending'), 1);
      expectedEvents.set(key(debit.id, debit.outcome.settled), 1);
      if (debit.outcome.returned) expectedEvents.set(key(debit.id, 'Refund'), 1);
    }
    expect(new Map(events.map((row) => [key(row.reference_number, row.event), row.n]))).toEqual(
      expectedEvents,
    );

    // And each of those rows reached the receiver once, whichever core's worker took its job.
    const rows = await allDeliveriesFinished(merchant, expectedEvents.size);
    expectEachDeliveredOnce(receiver.at(`${receiver.origin}${path}`), rows);
  });

  it('delivers each IPN once when both cores work the delivery queue', async () => {
    const path = '/ipn/charges';
    const merchant = await merchantWithIpn(path, ['Charge']);
    const sales = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const reply = await (index % 2 === 0 ? viaA : viaB).post('/transactions', saleBody(), as(merchant));
        return String(expectStatus(reply, 200).body.transactionId);
      }),
    );
    expect(new Set(sales).size).toBe(sales.length);

    await waitFor(
      'one request per sale at the receiver',
      async () => {
        const got = new Set(
          receiver.at(`${receiver.origin}${path}`).map((request) => request.params.get('referenceNumber')),
        );
        return sales.every((sale) => got.has(sale));
      },
      15_000,
    );
    const rows = await allDeliveriesFinished(merchant, sales.length);
    expect(rows.map((row) => row.event)).toEqual(sales.map(() => 'Charge'));
    expect(new Set(rows.map((row) => row.reference_number))).toEqual(new Set(sales));
    expect(rows.filter((row) => row.attempts !== 1)).toEqual([]); // acknowledged at once: no retry, no double
    const received = receiver.at(`${receiver.origin}${path}`);
    expectEachDeliveredOnce(received, rows);
    expect(received).toHaveLength(sales.length);
  });

  it('logged no error in either core', () => {
    expect(stack.logs.filter((line) => /"level":"error"|"message":"(procedure|SEPA|job)/.test(line))).toEqual(
      [],
    );
  });
});
