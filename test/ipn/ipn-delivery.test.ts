import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callOptions, createPaywireClient } from '@paywire/client';
import { type RunningCore, startCore } from '@paywire/core';
import { createLogger } from '@paywire/observability';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saleBody } from '../support/http.ts';
import { hookConfig } from '../support/ipn-receiver.ts';
import { type CoreProcess, coreProcess } from '../support/node-process.ts';
import { freePort } from '../support/ports.ts';
import {
  newDatabase,
  newFacadeCredential,
  newMerchant,
  type Stack,
  startFacade,
  startStack,
  type TestFacade,
  type TestMerchant,
} from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Reliable IPN delivery (see docs/conformance.md, IPN delivery): real sales through the facade produce CHARGE
 * events, core's delivery workers POST them to receivers on 127.0.0.1, and the outcome is read both at
 * the receiver and in the `ipn_delivery` rows. Every wait polls with a deadline.
 */

// ---------------------------------------------------------------------------------------------------------
// Helpers: a recording receiver, a facade + core stack of our own, database reads.

interface Received {
  path: string;
  webhookId: string;
  webhookTimestamp: string;
  webhookSignature: string;
  body: string;
  form: URLSearchParams;
  /** Receiver clock when the whole request body had arrived. */
  at: number;
  /** 1-based: how many requests with this webhook-id this path has seen, this one included. */
  nth: number;
  /** Set when the connection closed before our answer was complete (core gave up on it). */
  closedEarlyAt?: number;
  /** Set when our answer was complete. */
  answeredAt?: number;
}

type Behaviour = (request: Received, response: ServerResponse) => void;

interface Receiver {
  /** The receiver's origin, e.g. http://127.0.0.1:41234 */
  origin: string;
  requests: Received[];
  /** Requests received whose answer is neither complete nor cut off. */
  inFlight(): number;
  on(path: string): Received[];
  close(): Promise<void>;
}

async function startReceiver(behaviour: Behaviour): Promise<Receiver> {
  const requests: Received[] = [];
  let open = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(request.url ?? '/', 'http://receiver').pathname;
      const webhookId = String(request.headers['webhook-id'] ?? '');
      const received: Received = {
        path,
        webhookId,
        webhookTimestamp: String(request.headers['webhook-timestamp'] ?? ''),
        webhookSignature: String(request.headers['webhook-signature'] ?? ''),
        body,
        form: new URLSearchParams(body),
        at: Date.now(),
        nth: requests.filter((seen) => seen.path === path && seen.webhookId === webhookId).length + 1,
      };
      requests.push(received);
      open++;
      response.on('finish', () => {
        received.answeredAt = Date.now();
      });
      response.on('close', () => {
        open--;
        if (!response.writableFinished) received.closedEarlyAt = Date.now();
      });
      behaviour(received, response);
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    inFlight: () => open,
    on: (path) => requests.filter((request) => request.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const answer = (response: ServerResponse, status: number, headers: Record<string, string> = {}) => {
  if (!response.destroyed) response.writeHead(status, headers).end();
};

/** POST /notification-config: one destination with sendCharge on. */
async function configureCharge(baseUrl: string, merchant: TestMerchant, ipnUrl: string): Promise<void> {
  const reply = await fetch(`${baseUrl}/notification-config`, {
    method: 'POST',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(hookConfig(ipnUrl, ['sendCharge'])),
  });
  expect(reply.status, await reply.text()).toBe(200);
}

/** An approved AUTH_CAPTURE sale through the facade: its transaction id, the CHARGE's referenceNumber. */
async function sell(baseUrl: string, merchant: TestMerchant): Promise<string> {
  const reply = await fetch(`${baseUrl}/transactions`, {
    method: 'POST',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(saleBody()),
  });
  const text = await reply.text();
  expect(reply.status, text).toBe(200);
  return String((JSON.parse(text) as { transactionId: string }).transactionId);
}

interface DeliveryRow {
  id: string;
  event: string;
  state: string;
  attempts: number;
  max_attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_try_at: Date | null;
  delivered_at: Date | null;
}

async function deliveryOf(db: pg.Pool, referenceNumber: string): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `select id, event, state, attempts, max_attempts, last_status, last_error, next_try_at, delivered_at
       from ipn_delivery where reference_number = $1`,
    [referenceNumber],
  );
  expect(rows.length).toBeLessThanOrEqual(1);
  return rows[0];
}

const delivered = (db: pg.Pool, referenceNumber: string) => async () => {
  const row = await deliveryOf(db, referenceNumber);
  return row?.state === 'delivered' ? row : undefined;
};

// ---------------------------------------------------------------------------------------------------------
// Core in this process (the project's stack: retries from 1 s, the default 10 s attempt timeout).

describe('IPN delivery, core in process', () => {
  let stack: Stack;
  let db: pg.Pool;
  const receivers: Receiver[] = [];
  const receiver = async (behaviour: Behaviour) => {
    const started = await startReceiver(behaviour);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    stack = await startStack();
    db = stack.db;
  });

  afterAll(async () => {
    await Promise.all(receivers.map((started) => started.close()));
    await stack?.close();
  });

  it('retries a failing receiver until it acknowledges, with one webhook-id, signed', async () => {
    const merchant = await stack.newMerchant();
    const target = await receiver((request, response) => answer(response, request.nth <= 2 ? 500 : 200));
    await configureCharge(stack.baseUrl, merchant, `${target.origin}/ipn`);
    const transactionId = await sell(stack.baseUrl, merchant);

    const row = await waitFor('the CHARGE to be delivered', delivered(db, transactionId), 20_000);
    expect(row).toMatchObject({
      event: 'Charge',
      state: 'delivered',
      attempts: 3,
      last_status: 200,
      last_error: null,
    });
    expect(row.next_try_at).toBeNull();
    expect(row.delivered_at).toBeInstanceOf(Date);

    const attempts = target.on('/ipn');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((attempt) => attempt.webhookId))).toEqual(new Set([`ipn_${row.id}`]));
    expect(attempts.map((attempt) => attempt.body)).toEqual([
      attempts[0]?.body,
      attempts[0]?.body,
      attempts[0]?.body,
    ]);
    // Backoff, not a tight loop: each retry waits at least about the first delay (1 s in this stack).
    for (let n = 1; n < attempts.length; n++) {
      expect((attempts[n]?.at ?? 0) - (attempts[n - 1]?.at ?? 0)).toBeGreaterThanOrEqual(900);
    }

    const form = attempts[0]?.form ?? new URLSearchParams();
    expect(form.get('transactionType')).toBe('CHARGE');
    expect(form.get('referenceNumber')).toBe(transactionId);
    expect(form.get('testMode')).toBe('Y');
    const { secret } = await createPaywireClient({
      url: stack.core.url,
      credential: stack.facadeCredential,
    }).ipn.secret.query(undefined, callOptions({ merchantId: merchant.id }));
    expect(form.get('authKey')).toBe(createHash('md5').update(`${transactionId}${secret}`).digest('hex'));
    for (const attempt of attempts) {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      const expected = createHmac('sha256', key)
        .update(`${attempt.webhookId}.${attempt.webhookTimestamp}.${attempt.body}`)
        .digest('base64');
      expect(attempt.webhookSignature.split(' ')).toContain(`v1,${expected}`);
    }
  });

  it('does not follow a redirect and does not take it for an acknowledgement', async () => {
    const merchant = await stack.newMerchant();
    let origin = '';
    const target = await receiver((request, response) => {
      if (request.path === '/moved') return answer(response, 200);
      if (request.nth <= 2) return answer(response, 302, { location: `${origin}/moved` });
      answer(response, 200);
    });
    origin = target.origin;
    await configureCharge(stack.baseUrl, merchant, `${target.origin}/ipn`);
    const transactionId = await sell(stack.baseUrl, merchant);

    // Attempts are counted when they start; the first one is over when it has left its outcome.
    const first = await waitFor('the first attempt to be over', async () => {
      const row = await deliveryOf(db, transactionId);
      const over = row && row.state !== 'sending' && (row.last_error !== null || row.state !== 'pending');
      return over ? row : undefined;
    });
    if (first.attempts === 1) {
      expect(first).toMatchObject({ state: 'pending', last_status: 302 });
    }

    const row = await waitFor('the CHARGE to be delivered', delivered(db, transactionId), 20_000);
    expect(row).toMatchObject({ state: 'delivered', attempts: 3, last_status: 200 });
    expect(target.on('/ipn')).toHaveLength(3);
    expect(target.on('/moved')).toHaveLength(0);
  });

  it('takes a 200 with a huge body as an acknowledgement without reading it all', async () => {
    const merchant = await stack.newMerchant();
    const hugeBytes = 50 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let bytesAccepted = 0;
    let streamEnded = false;
    const target = await receiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(hugeBytes) });
      const pump = () => {
        while (!response.destroyed && bytesAccepted < hugeBytes) {
          bytesAccepted += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        if (!response.destroyed) {
          streamEnded = true;
          response.end();
        }
      };
      pump();
    });
    await configureCharge(stack.baseUrl, merchant, `${target.origin}/ipn`);
    const quietStarted = Date.now();
    const transactionId = await sell(stack.baseUrl, merchant);
    const quietMs = Date.now() - quietStarted;

    const row = await waitFor('the CHARGE to be delivered', delivered(db, transactionId), 15_000);
    expect(row).toMatchObject({ state: 'delivered', attempts: 1, last_status: 200 });
    const [request] = target.on('/ipn');
    await waitFor('core to drop the huge answer', () => request?.closedEarlyAt !== undefined, 5_000);
    expect(streamEnded).toBe(false);
    expect(bytesAccepted).toBeLessThan(hugeBytes / 2);
    console.info(
      `huge answer: core let ${(bytesAccepted / 1024 / 1024).toFixed(1)} MB of 50 MB be written, then closed`,
    );

    // Core still serves: a sale answers about as promptly as the first one (a wide margin: the machine is
    // shared) and its own CHARGE goes out.
    const started = Date.now();
    const next = await sell(stack.baseUrl, merchant);
    expect(Date.now() - started).toBeLessThan(Math.max(2_000, 5 * quietMs));
    await waitFor('the next CHARGE to be delivered', delivered(db, next), 10_000);
  });

  it('keeps retrying a receiver that always fails, backing off, until max attempts', async () => {
    const merchant = await stack.newMerchant();
    const target = await receiver((_request, response) => answer(response, 500));
    await configureCharge(stack.baseUrl, merchant, `${target.origin}/ipn`);
    const transactionId = await sell(stack.baseUrl, merchant);

    // One snapshot per attempt, once its outcome is recorded (attempts are counted when they start):
    // polled every 50 ms, retries are at least a second apart.
    const snapshots = new Map<number, DeliveryRow>();
    await waitFor(
      'three failed attempts',
      async () => {
        const row = await deliveryOf(db, transactionId);
        const previous = row && snapshots.get(row.attempts - 1);
        const settled =
          row !== undefined &&
          row.state === 'pending' &&
          row.last_error !== null &&
          (!previous || row.next_try_at?.getTime() !== previous.next_try_at?.getTime());
        if (row && row.attempts > 0 && settled && !snapshots.has(row.attempts))
          snapshots.set(row.attempts, row);
        return snapshots.has(3);
      },
      25_000,
    );
    const attempts = target.on('/ipn');
    const seen = [1, 2, 3].map((n) => snapshots.get(n));
    for (const [index, row] of seen.entries()) {
      expect(row, `attempt ${index + 1}'s row`).toBeDefined();
      expect(row).toMatchObject({
        attempts: index + 1,
        state: 'pending',
        max_attempts: 11,
        last_status: 500,
        last_error: 'answered 500',
        delivered_at: null,
      });
      expect(row?.next_try_at).toBeInstanceOf(Date);
    }
    const nextTries = seen.map((row) => row?.next_try_at?.getTime() ?? 0);
    // next_try_at moves forward, and by a doubling gap: about 1 s, 2 s, 4 s after each attempt.
    for (let n = 0; n < 3; n++) {
      const gap = (nextTries[n] ?? 0) - (attempts[n]?.at ?? 0);
      expect(gap, `next_try_at after attempt ${n + 1}`).toBeGreaterThan(1000 * 2 ** n - 50);
      expect(gap, `next_try_at after attempt ${n + 1}`).toBeLessThan(1000 * 2 ** n + 1000);
    }
    expect(nextTries[1]).toBeGreaterThan(nextTries[0] ?? 0);
    expect(nextTries[2]).toBeGreaterThan(nextTries[1] ?? 0);
    // The retry is not made before the time the row announces.
    for (let n = 1; n < 3; n++) {
      expect(attempts[n]?.at ?? 0).toBeGreaterThanOrEqual((nextTries[n - 1] ?? 0) - 100);
    }
    expect(new Set(attempts.map((attempt) => attempt.webhookId)).size).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Core in process with a short attempt timeout (startStack has no option for it).

describe('IPN delivery, short attempt timeout', () => {
  let databaseUrl: string;
  let core: RunningCore;
  let facade: TestFacade;
  let db: pg.Pool;
  let target: Receiver | undefined;
  const coreLogs: string[] = [];

  beforeAll(async () => {
    databaseUrl = await newDatabase('paywire_ipn_timeout');
    core = await startCore({
      databaseUrl,
      port: 0,
      mode: 'sandbox',
      cardEncryptionKey: randomBytes(32),
      poolSize: 8,
      ipnRetryDelaySeconds: 1,
      ipnTimeoutMs: 300,
      log: createLogger('core', (line) => coreLogs.push(line)),
    });
    facade = await startFacade(core.url, await newFacadeCredential(databaseUrl));
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  });

  afterAll(async () => {
    await target?.close();
    await facade?.close();
    await core?.close();
    await db?.end();
  });

  it('gives up on an attempt at the timeout and retries until answered in time', async () => {
    const merchant = await newMerchant(databaseUrl);
    const timers: NodeJS.Timeout[] = [];
    target = await startReceiver((request, response) => {
      if (request.nth === 1)
        timers.push(setTimeout(() => answer(response, 200), 3_000)); // far past 300 ms
      else answer(response, 200);
    });
    await configureCharge(facade.baseUrl, merchant, `${target.origin}/ipn`);
    const transactionId = await sell(facade.baseUrl, merchant);

    // Attempts are counted when they start; the first one is over when it has left its outcome.
    const first = await waitFor('the first attempt to be over', async () => {
      const row = await deliveryOf(db, transactionId);
      const over = row && row.state !== 'sending' && (row.last_error !== null || row.state !== 'pending');
      return over ? row : undefined;
    });
    if (first.attempts === 1) {
      expect(first).toMatchObject({ state: 'pending', last_status: null, last_error: 'timed out' });
    }
    const row = await waitFor('the CHARGE to be delivered', delivered(db, transactionId), 15_000);
    for (const timer of timers) clearTimeout(timer);
    expect(row).toMatchObject({ state: 'delivered', attempts: 2, last_status: 200 });
    const attempts = target.on('/ipn');
    expect(attempts).toHaveLength(2);
    expect(attempts[0]?.webhookId).toBe(attempts[1]?.webhookId);
    // The first attempt was cut off by core at about its 300 ms, long before our 3 s answer.
    const cutAfter = (attempts[0]?.closedEarlyAt ?? Number.POSITIVE_INFINITY) - (attempts[0]?.at ?? 0);
    expect(cutAfter).toBeGreaterThanOrEqual(200);
    expect(cutAfter).toBeLessThan(1_500);
    expect(attempts[1]?.closedEarlyAt).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------
// Batches, isolation between receivers, the circuit breaker: core in process with a 10 s attempt timeout, a
// 1 s first circuit pause, and retries a minute apart (so a failed row stays as its attempt left it). The
// timeout and the pauses are wide so that a loaded machine's slowness is not taken for them.

describe('IPN delivery at scale: batches, isolation, circuit breaker', () => {
  let databaseUrl: string;
  let core: RunningCore;
  let facade: TestFacade;
  let db: pg.Pool;
  const receivers: Receiver[] = [];
  const receiver = async (behaviour: Behaviour) => {
    const started = await startReceiver(behaviour);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    databaseUrl = await newDatabase('paywire_ipn_scale');
    core = await startCore({
      databaseUrl,
      port: 0,
      mode: 'sandbox',
      cardEncryptionKey: randomBytes(32),
      poolSize: 8,
      ipnRetryDelaySeconds: 60,
      ipnTimeoutMs: 10_000,
      ipnBreakerPauseMs: 1_000,
    });
    facade = await startFacade(core.url, await newFacadeCredential(databaseUrl));
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  });

  afterAll(async () => {
    await Promise.all(receivers.map((started) => started.close()));
    await facade?.close();
    await core?.close();
    await db?.end();
  });

  async function configure(merchant: TestMerchant, ipnUrls: string[]): Promise<void> {
    const reply = await fetch(`${facade.baseUrl}/notification-config`, {
      method: 'POST',
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      body: JSON.stringify(hookConfig(ipnUrls, ['sendCharge'])),
    });
    expect(reply.status, await reply.text()).toBe(200);
  }

  const rowsOf = async (merchant: TestMerchant) =>
    (
      await db.query<DeliveryRow & { destination: string; reference_number: string }>(
        `select id, event, state, attempts, max_attempts, last_status, last_error, next_try_at, delivered_at,
                destination, reference_number
           from ipn_delivery where merchant_id = $1 order by id`,
        [merchant.id],
      )
    ).rows;

  it('records each outcome of one batch: acknowledged, 500, timed out, connection refused', async () => {
    const merchant = await newMerchant(databaseUrl);
    const acknowledging = await receiver((_request, response) => answer(response, 200));
    const failing = await receiver((_request, response) => answer(response, 500));
    const silent = await receiver(() => {}); // never answers
    const closedPort = await freePort(); // nothing listens: the connection is refused
    const destinations = {
      acknowledged: `${acknowledging.origin}/ipn`,
      failed: `${failing.origin}/ipn`,
      silent: `${silent.origin}/ipn`,
      refused: `http://127.0.0.1:${closedPort}/ipn`,
    };
    await configure(merchant, Object.values(destinations));
    // One sale: one event, its four rows written in one statement, due together, claimed together.
    const transactionId = await sell(facade.baseUrl, merchant);

    const rows = await waitFor(
      'every attempt to leave its outcome',
      async () => {
        const found = await rowsOf(merchant);
        const over = (row: DeliveryRow) =>
          row.state !== 'sending' && (row.state !== 'pending' || row.last_error);
        return found.length === 4 && found.every(over) && found;
      },
      30_000,
    );
    const byDestination = new Map(rows.map((row) => [row.destination, row]));
    expect(byDestination.get(destinations.acknowledged)).toMatchObject({
      state: 'delivered',
      attempts: 1,
      last_status: 200,
      last_error: null,
      next_try_at: null,
    });
    expect(byDestination.get(destinations.failed)).toMatchObject({
      state: 'pending',
      attempts: 1,
      last_status: 500,
      last_error: 'answered 500',
      delivered_at: null,
    });
    expect(byDestination.get(destinations.silent)).toMatchObject({
      state: 'pending',
      attempts: 1,
      last_status: null,
      last_error: 'timed out',
    });
    expect(byDestination.get(destinations.refused)).toMatchObject({
      state: 'pending',
      attempts: 1,
      last_status: null,
    });
    expect(byDestination.get(destinations.refused)?.last_error).toMatch(/ECONNREFUSED/);
    // Each failure is retried after the first delay (60 s here), not before.
    for (const url of [destinations.failed, destinations.silent, destinations.refused]) {
      const nextTry = byDestination.get(url)?.next_try_at?.getTime() ?? 0;
      expect(nextTry - Date.now(), url).toBeGreaterThan(50_000);
    }
    expect(acknowledging.on('/ipn').map((request) => request.form.get('referenceNumber'))).toEqual([
      transactionId,
    ]);
    expect(failing.on('/ipn')).toHaveLength(1);
    expect(silent.on('/ipn')).toHaveLength(1);
  });

  it("a receiver that never answers does not delay another merchant's deliveries", async () => {
    const stalled = await newMerchant(databaseUrl);
    const healthy = await newMerchant(databaseUrl);
    const stalling = await receiver(() => {});
    const answering = await receiver((_request, response) => answer(response, 200));
    await configure(stalled, [`${stalling.origin}/ipn`]);
    await configure(healthy, [`${answering.origin}/ipn`]);

    // More events than the stalled destination may have in flight (16): its first attempts hang for 10 s.
    await Promise.all(Array.from({ length: 20 }, () => sell(facade.baseUrl, stalled)));
    await waitFor('the stalled destination to be full', () => stalling.inFlight() === 16, 9_000, 10);
    const references = await Promise.all(Array.from({ length: 5 }, () => sell(facade.baseUrl, healthy)));
    await waitFor('the healthy merchant to get all its deliveries', () => {
      const got = new Set(answering.on('/ipn').map((request) => request.form.get('referenceNumber')));
      return references.every((reference) => got.has(reference));
    });
    // All of them arrived while every attempt at the stalled receiver was still open.
    expect(stalling.requests.every((request) => request.closedEarlyAt === undefined)).toBe(true);
    expect(stalling.inFlight()).toBe(16);
  });

  it('opens the circuit of a failing destination, probes it alone, and closes it when it answers', async () => {
    const merchant = await newMerchant(databaseUrl);
    let failing = true;
    const arrivals: { at: number; inFlight: number }[] = [];
    const target = await receiver((_request, response) => {
      arrivals.push({ at: Date.now(), inFlight: target.inFlight() });
      answer(response, failing ? 500 : 200);
    });
    await configure(merchant, [`${target.origin}/ipn`]);

    // Five failures in a row open the circuit.
    for (let n = 0; n < 5; n++) await sell(facade.baseUrl, merchant);
    await waitFor('five failed attempts recorded', async () => {
      const rows = await rowsOf(merchant);
      return rows.length === 5 && rows.every((row) => row.last_error === 'answered 500');
    });
    const openedAt = Date.now();
    const waiting = await Promise.all(Array.from({ length: 3 }, () => sell(facade.baseUrl, merchant)));

    // The first probe: one delivery, alone, about the first pause (1 s) after the circuit opened; until
    // then the three new deliveries were due and waited in the database, unsent.
    const { rows: unsent } = await db.query<{ count: string }>(
      `select count(*) from ipn_delivery where merchant_id = $1 and reference_number = any($2) and attempts = 0`,
      [merchant.id, waiting],
    );
    await waitFor('the first probe', () => arrivals.length >= 6, 10_000, 10);
    expect(arrivals).toHaveLength(6);
    expect(Number(unsent[0]?.count)).toBeGreaterThan(0);
    expect((arrivals[5]?.at ?? 0) - openedAt).toBeGreaterThanOrEqual(600);
    expect(arrivals[5]?.inFlight).toBe(1);

    // It failed: the next probe waits twice as long. This one is answered and closes the circuit.
    failing = false;
    await waitFor('the second probe', () => arrivals.length >= 7, 10_000, 10);
    expect((arrivals[6]?.at ?? 0) - (arrivals[5]?.at ?? 0)).toBeGreaterThanOrEqual(1_800);
    expect(arrivals[6]?.inFlight).toBe(1);
    // The failed probe's delivery waits for its retry (a minute); the other two are delivered.
    const rows = await waitFor('the two other new deliveries to be delivered', async () => {
      const found = (await rowsOf(merchant)).filter((row) => waiting.includes(row.reference_number));
      return found.filter((row) => row.state === 'delivered').length === 2 && found;
    });
    expect(rows.filter((row) => row.state === 'pending')).toMatchObject([
      { attempts: 1, last_error: 'answered 500' },
    ]);
    // Closed again: the last one went without waiting for another pause (the next would be 4 s).
    expect(arrivals).toHaveLength(8);
    expect((arrivals[7]?.at ?? 0) - (arrivals[6]?.at ?? 0)).toBeLessThan(3_000);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Core as a child process, killed with SIGKILL while deliveries are in flight, then restarted.

describe('IPN delivery across a core crash', () => {
  let core: CoreProcess;
  let databaseUrl: string;
  let facade: TestFacade;
  let db: pg.Pool;
  let target: Receiver | undefined;

  beforeAll(async () => {
    databaseUrl = await newDatabase('paywire_ipn_crash');
    core = coreProcess({
      DATABASE_URL: databaseUrl,
      CORE_PORT: String(await freePort()),
      CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      DATABASE_POOL_SIZE: '8',
      IPN_RETRY_DELAY_SECONDS: '1',
    });
    // Ready, not only listening: a core answers 503 until its workers have started.
    await core.start();
    facade = await startFacade(core.trpcUrl, await newFacadeCredential(databaseUrl));
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  });

  afterAll(async () => {
    await core?.kill();
    await target?.close();
    await facade?.close();
    await db?.end();
  });

  it('delivers every event at least once when core is killed mid-delivery', {
    timeout: 180_000,
  }, async () => {
    const sales = 20;
    const merchant = await newMerchant(databaseUrl);
    const timers = new Set<NodeJS.Timeout>();
    target = await startReceiver((_request, response) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer(response, 200);
      }, 500);
      timers.add(timer);
    });
    await configureCharge(facade.baseUrl, merchant, `${target.origin}/ipn`);
    const references = await Promise.all(Array.from({ length: sales }, () => sell(facade.baseUrl, merchant)));
    expect(new Set(references).size).toBe(sales);

    const receiving = target;
    // Several deliveries open at the receiver (each takes 500 ms to answer), then the kill.
    await waitFor('deliveries in flight', () => receiving.inFlight() >= 5, 60_000, 10);
    const inFlightAtKill = receiving.inFlight();
    const killedAt = Date.now();
    await core?.kill();
    const receivedBeforeKill = new Set(
      receiving.requests.map((request) => request.form.get('referenceNumber')),
    ).size;
    const { rows: atKill } = await db.query<{ state: string; count: string }>(
      'select state, count(*) from ipn_delivery where merchant_id = $1 group by state',
      [merchant.id],
    );
    // Held by the killed core: claimed, and no outcome written yet. Only these may be sent twice.
    const { rows: heldAtKill } = await db.query<{ reference_number: string }>(
      `select reference_number from ipn_delivery where merchant_id = $1 and state = 'sending'`,
      [merchant.id],
    );
    expect(inFlightAtKill).toBeGreaterThan(0); // the kill landed on deliveries in flight

    await core.start();
    const startedAgain = Date.now();
    const receivedAll = () => {
      const got = new Set(receiving.requests.map((request) => request.form.get('referenceNumber')));
      return references.every((reference) => got.has(reference));
    };
    const allDelivered = async () => {
      const { rows } = await db.query<{ count: string }>(
        `select count(*) from ipn_delivery where merchant_id = $1 and state = 'delivered'`,
        [merchant.id],
      );
      return Number(rows[0]?.count) === sales;
    };
    try {
      await waitFor(
        'every event to be received and every row delivered',
        async () => receivedAll() && allDelivered(),
        30_000,
        100,
      );
    } finally {
      const { rows: now } = await db.query<{ state: string; attempts: number; count: string }>(
        'select state, attempts, count(*) from ipn_delivery where merchant_id = $1 group by state, attempts order by 1, 2',
        [merchant.id],
      );
      const charges = receiving.requests.filter((request) =>
        references.includes(request.form.get('referenceNumber') ?? ''),
      );
      console.info(
        `IPN crash test: ${sales} CHARGE events, ${inFlightAtKill} deliveries in flight at the SIGKILL, ` +
          `${receivedBeforeKill} events received before it; rows at the kill ${JSON.stringify(atKill)}; ` +
          `${charges.length} requests received, ${charges.length - new Set(charges.map((c) => c.form.get('referenceNumber'))).size} duplicates; ` +
          `${((Date.now() - startedAgain) / 1000).toFixed(1)} s after the restart rows are ${JSON.stringify(now)}`,
      );
      for (const timer of timers) clearTimeout(timer);
    }
    const charges = receiving.requests.filter((request) =>
      references.includes(request.form.get('referenceNumber') ?? ''),
    );
    const distinct = new Set(charges.map((request) => request.form.get('referenceNumber')));
    expect(distinct.size).toBe(sales);
    // Sent again only what was in flight at the kill: a delivery the dead core had claimed and whose
    // outcome it had not written (a request still open, or answered just before the kill). A delivery
    // whose outcome was written is never sent again.
    const held = new Set(heldAtKill.map((row) => row.reference_number));
    const duplicated = references.filter(
      (reference) => charges.filter((c) => c.form.get('referenceNumber') === reference).length > 1,
    );
    expect(duplicated.filter((reference) => !held.has(reference))).toEqual([]);
    const openAtKill = charges.filter((c) => c.at < killedAt && (c.answeredAt ?? Infinity) > killedAt);
    for (const open of openAtKill) expect(held.has(open.form.get('referenceNumber') ?? '')).toBe(true);
    // Within seconds of the restart: a lapsed lease (8 s), not a long job expiry.
    const lastArrival = Math.max(...charges.map((c) => c.at));
    expect(lastArrival - startedAgain).toBeLessThan(15_000);
    console.info(`IPN crash test: duplicates received ${charges.length - sales}`);
    // A duplicate is the same delivery again: the receiver can dedupe it by webhook-id.
    for (const reference of references) {
      const ids = new Set(
        charges.filter((c) => c.form.get('referenceNumber') === reference).map((c) => c.webhookId),
      );
      expect(ids.size).toBe(1);
    }
  });
});
