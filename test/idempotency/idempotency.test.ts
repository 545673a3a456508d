import { randomUUID } from 'node:crypto';
import { sweepExpiredRecords } from '@paywire/core';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adyenTestCard, startLiveStack } from '../support/adyen.ts';
import {
  as,
  type CallOptions,
  client,
  expectStatus,
  type Reply,
  saleBody,
  xmlDocument,
} from '../support/http.ts';
import { hookConfig } from '../support/ipn-receiver.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// Idempotency-Key on POST (see docs/conformance.md, Idempotency and Sandbox
// clock), over real HTTP against real PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

const NAMESPACE = 'http://ws.plimus.com';
const DECLINING_VISA = '4917484589897107';
const asCardTransaction: CallOptions = { format: 'xml', shape: { root: 'card-transaction' } };

let stack: Stack;
let api: ReturnType<typeof client>;
let db: pg.Pool;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  db = stack.db;
});

afterAll(async () => {
  await stack?.close();
});

/** A fresh key of the recommended kind: a UUID (36 letters, digits and '-'). */
const newKey = () => randomUUID();

/** Call options carrying the key, as the given merchant (the stack's own by default). */
function keyed(key: string, options: CallOptions = {}): CallOptions {
  return { ...options, headers: { ...options.headers, 'idempotency-key': key } };
}

const sale = (options: CallOptions, body: unknown = saleBody()) => api.post('/transactions', body, options);

async function count(sql: string, params: unknown[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select (${sql})::int as n`, params);
  return rows[0]?.n ?? Number.NaN;
}

const payments = (merchant: TestMerchant) =>
  count('select count(*) from card_transaction where merchant_id = $1', [merchant.id]);
const shoppers = (merchant: TestMerchant) =>
  count('select count(*) from shopper where merchant_id = $1', [merchant.id]);
const records = (merchant: TestMerchant, key?: string) =>
  key === undefined
    ? count('select count(*) from idempotency_record where merchant_id = $1', [merchant.id])
    : count('select count(*) from idempotency_record where merchant_id = $1 and key = $2', [
        merchant.id,
        key,
      ]);

const advanceClock = async (merchant: TestMerchant, advanceBy: string) =>
  expectStatus(await api.put('/sandbox/clock', { advanceBy }, { merchant }), 200);

/** The interface's error body in JSON or XML; checks status, first message's name and code. */
function expectError(reply: Reply, status: number, errorName: string, code: number) {
  expect(reply.status, reply.text).toBe(status);
  const [first] = reply.body?.message ?? [];
  expect(first?.errorName, reply.text).toBe(errorName);
  expect(Number(first?.code), reply.text).toBe(code);
  return first;
}

/** A replay: the stored status, the identical body text and content type, and the key echoed back. */
function expectReplay(again: Reply, first: Reply, key: string): void {
  expect(again.status, again.text).toBe(first.status);
  expect(again.text).toBe(first.text);
  expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
  expect(first.headers.get('idempotency-key')).toBe(key);
  expect(again.headers.get('idempotency-key')).toBe(key);
}

// ---------------------------------------------------------------------------------------------------------

describe('replay of a sale', () => {
  it('answers a repeated JSON sale with the same status, body and key, and pays once', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const first = expectStatus(await sale(keyed(key, as(merchant))), 200);
    expect(first.body.transactionId).toMatch(/^\d+$/);

    const again = await sale(keyed(key, as(merchant)));
    expectReplay(again, first, key);
    expect(await payments(merchant)).toBe(1);
    expect(await records(merchant, key)).toBe(1);
  });

  it('answers a repeated XML sale with the identical XML, and pays once', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const body = xmlDocument('card-transaction', saleBody({ amount: '25.50' }));
    const first = expectStatus(await sale(keyed(key, as(merchant, asCardTransaction)), body), 200);
    expect(first.headers.get('content-type')).toMatch(/application\/xml/);
    expect(first.text).toContain(`<card-transaction xmlns="${NAMESPACE}">`);
    expect(first.body.transactionId).toMatch(/^\d+$/);

    const again = await sale(keyed(key, as(merchant, asCardTransaction)), body);
    expectReplay(again, first, key);
    expect(await payments(merchant)).toBe(1);
  });

  it('runs a request without a key every time', async () => {
    const merchant = await stack.newMerchant();
    const first = expectStatus(await sale(as(merchant)), 200);
    const second = expectStatus(await sale(as(merchant)), 200);
    expect(second.body.transactionId).not.toBe(first.body.transactionId);
    expect(first.headers.get('idempotency-key')).toBeNull();
    expect(await payments(merchant)).toBe(2);
    expect(await records(merchant)).toBe(0);
  });
});

describe('each keyed POST route runs once', () => {
  it('POST /transactions AUTH_ONLY', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const body = saleBody({ cardTransactionType: 'AUTH_ONLY' });
    const first = expectStatus(await sale(keyed(key, as(merchant)), body), 200);
    expect(first.body.cardTransactionType).toBe('AUTH_ONLY');

    const again = await sale(keyed(key, as(merchant)), body);
    expect(await payments(merchant)).toBe(1);
    expectReplay(again, first, key);
  });

  it('POST /transactions/refund/{id}: the repeat replays and refunds nothing more', async () => {
    const merchant = await stack.newMerchant();
    const paid = expectStatus(await sale(as(merchant)), 200).body; // 25.50
    const path = `/transactions/refund/${paid.transactionId}`;
    const key = newKey();
    const first = expectStatus(await api.post(path, { amount: 10 }, keyed(key, as(merchant))), 200);
    expect(first.body).toMatchObject({ transactionId: paid.transactionId, amount: 10 });

    const again = await api.post(path, { amount: 10 }, keyed(key, as(merchant)));
    const { rows } = await db.query<{ refunds: number; total: string }>(
      'select count(*)::int as refunds, sum(amount_minor)::text as total from refund where transaction_id = $1',
      [paid.transactionId],
    );
    expect(rows[0]).toEqual({ refunds: 1, total: '1000' });
    // 15.50 is still refundable: exactly 10 of 25.50 went back.
    expectStatus(await api.post(path, { amount: 15.5 }, as(merchant)), 200);
    expectReplay(again, first, key);
  });

  it('POST /vaulted-shoppers creates one shopper', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const body = { firstName: 'Ada', lastName: 'Lovelace', merchantShopperId: `shopper-${key}` };
    const first = expectStatus(await api.post('/vaulted-shoppers', body, keyed(key, as(merchant))), 200);
    expect(first.body.vaultedShopperId).toEqual(expect.any(Number));

    const again = await api.post('/vaulted-shoppers', body, keyed(key, as(merchant)));
    expect(await shoppers(merchant)).toBe(1);
    expectReplay(again, first, key);
  });

  it('POST /payment-fields-tokens answers 201 with the same Location, one token', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const first = expectStatus(
      await api.post('/payment-fields-tokens', undefined, keyed(key, as(merchant))),
      201,
    );
    const location = first.headers.get('location');
    expect(location).toMatch(/\/services\/2\/payment-fields-tokens\/[A-Za-z0-9_-]+$/);

    const again = await api.post('/payment-fields-tokens', undefined, keyed(key, as(merchant)));
    expect(
      await count('select count(*) from payment_fields_token where merchant_id = $1', [merchant.id]),
    ).toBe(1);
    expect(again.headers.get('location')).toBe(location);
    expectReplay(again, first, key);
  });
});

describe('methods other than POST ignore the key', () => {
  it('a keyed PUT /transactions capture runs again: the second gets 20010', async () => {
    const merchant = await stack.newMerchant();
    const auth = expectStatus(await sale(as(merchant), saleBody({ cardTransactionType: 'AUTH_ONLY' })), 200);
    const key = newKey();
    const capture = () =>
      api.put(
        '/transactions',
        { cardTransactionType: 'CAPTURE', transactionId: auth.body.transactionId },
        keyed(key, as(merchant)),
      );

    const first = expectStatus(await capture(), 200);
    expect(first.headers.get('idempotency-key')).toBeNull();
    expectError(await capture(), 400, 'TRANSACTION_ALREADY_CAPTURED', 20010);
    expect(await records(merchant)).toBe(0);
  });

  it('GET does not even check the key', async () => {
    const paid = expectStatus(await sale({}), 200).body;
    const reply = await api.get(`/transactions/${paid.transactionId}`, keyed('not a valid key!'));
    expectStatus(reply, 200);
    expect(reply.body.transactionId).toBe(paid.transactionId);
  });
});

describe('the same key with a different request', () => {
  /** Sends the original keyed sale, returns a check that it still replays unchanged. */
  async function original(merchant: TestMerchant, key: string, body: unknown = saleBody()) {
    const first = expectStatus(await sale(keyed(key, as(merchant)), body), 200);
    return async () => {
      const again = await sale(keyed(key, as(merchant)), body);
      expect(await payments(merchant)).toBe(1);
      expectReplay(again, first, key);
    };
  }

  it('a different amount: 422 60101 in JSON, the original intact', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const stillReplays = await original(merchant, key);

    const reply = await sale(keyed(key, as(merchant)), saleBody({ amount: 30 }));
    expectError(reply, 422, 'SAME_IDEMPOTENCY_KEY_WAS_ALREADY_IN_USE_WITH_PREVIOUS_DIFFERENT_REQUEST', 60101);
    expect(reply.headers.get('content-type')).toMatch(/application\/json/);
    await stillReplays();
  });

  it('a different path with the same body: 422 60101, no shopper created', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    // Valid for both routes: each one ignores the other's fields.
    const body = saleBody({ firstName: 'Ada', lastName: 'Lovelace' });
    const stillReplays = await original(merchant, key, body);
    const shoppersBefore = await shoppers(merchant);

    const reply = await api.post('/vaulted-shoppers', body, keyed(key, as(merchant)));
    expectError(reply, 422, 'SAME_IDEMPOTENCY_KEY_WAS_ALREADY_IN_USE_WITH_PREVIOUS_DIFFERENT_REQUEST', 60101);
    expect(await shoppers(merchant)).toBe(shoppersBefore);
    await stillReplays();
  });

  it('a different query string: 422 60101', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const post = (query: string) => api.post(`/transactions${query}`, saleBody(), keyed(key, as(merchant)));
    const first = expectStatus(await post('?channel=web'), 200);

    const reply = await post('?channel=app');
    expectError(reply, 422, 'SAME_IDEMPOTENCY_KEY_WAS_ALREADY_IN_USE_WITH_PREVIOUS_DIFFERENT_REQUEST', 60101);
    const again = await post('?channel=web');
    expect(await payments(merchant)).toBe(1);
    expectReplay(again, first, key);
  });

  it('Accept: application/xml instead of JSON: 422 60101, answered in XML', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const stillReplays = await original(merchant, key);

    const reply = await sale(keyed(key, as(merchant, { accept: 'application/xml' })));
    expect(reply.headers.get('content-type')).toMatch(/application\/xml/);
    expectError(reply, 422, 'SAME_IDEMPOTENCY_KEY_WAS_ALREADY_IN_USE_WITH_PREVIOUS_DIFFERENT_REQUEST', 60101);
    await stillReplays();
  });

  it('a different XML body: 422 60101, answered in XML', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const xmlSale = (amount: string) => xmlDocument('card-transaction', saleBody({ amount }));
    expectStatus(await sale(keyed(key, as(merchant, asCardTransaction)), xmlSale('25.50')), 200);

    const reply = await sale(keyed(key, as(merchant, asCardTransaction)), xmlSale('26.50'));
    expect(reply.headers.get('content-type')).toMatch(/application\/xml/);
    expectError(reply, 422, 'SAME_IDEMPOTENCY_KEY_WAS_ALREADY_IN_USE_WITH_PREVIOUS_DIFFERENT_REQUEST', 60101);
    expect(await payments(merchant)).toBe(1);
  });
});

describe('key validation', () => {
  /** A key of every allowed kind of character, of the given length. */
  const keyOf = (length: number) => 'aZ9-'.repeat(length).slice(0, length);

  it('65 characters: 400 60103, nothing stored or run', async () => {
    const merchant = await stack.newMerchant();
    const reply = await sale(keyed(keyOf(65), as(merchant)));
    expectError(reply, 400, 'IDEMPOTENCY_KEY_MAX_LENGTH_LIMIT_EXCEEDED', 60103);
    expect(await records(merchant)).toBe(0);
    expect(await payments(merchant)).toBe(0);
  });

  it('64 characters of letters, digits and - are accepted and kept', async () => {
    const merchant = await stack.newMerchant();
    const key = keyOf(64);
    const first = expectStatus(await sale(keyed(key, as(merchant))), 200);
    const again = await sale(keyed(key, as(merchant)));
    expect(await records(merchant, key)).toBe(1);
    expect(await payments(merchant)).toBe(1);
    expectReplay(again, first, key);
  });

  it.each([
    ['an underscore', 'abc_def'],
    ['a space', 'a b'],
    ['a non-ASCII letter', 'é'],
    ['nothing', ''],
  ])('%s: 400 60104, nothing stored or run', async (_, key) => {
    const merchant = await stack.newMerchant();
    expectError(await sale(keyed(key, as(merchant))), 400, 'INVALID_IDEMPOTENCY_KEY', 60104);
    expect(await records(merchant)).toBe(0);
    expect(await payments(merchant)).toBe(0);
  });
});

describe('requests refused before the domain store nothing', () => {
  it('bad credentials: 401, then the same key with good credentials runs', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const impostor = {
      ...merchant,
      authorization: `Basic ${Buffer.from(`${merchant.username}:wrong-password`).toString('base64')}`,
    };
    expectError(await sale(keyed(key, as(impostor))), 401, 'UNAUTHORIZED', 10401);
    expect(await records(merchant)).toBe(0);

    expectStatus(await sale(keyed(key, as(merchant))), 200);
    expect(await payments(merchant)).toBe(1);
  });

  it('malformed JSON: 400, then the same key with a valid body runs (not 422)', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const broken = await sale(keyed(key, as(merchant, { raw: '{"amount": 25.5,' })));
    expectError(broken, 400, 'VALIDATION_GENERAL_FAILURE', 10001);
    expect(await records(merchant)).toBe(0);

    expectStatus(await sale(keyed(key, as(merchant))), 200);
    expect(await payments(merchant)).toBe(1);
  });

  it('failed validation (no amount): 400, then the same key with a valid body runs', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const { amount: _, ...noAmount } = saleBody();
    expectError(await sale(keyed(key, as(merchant)), noAmount), 400, 'VALIDATION_GENERAL_FAILURE', 10001);
    expect(await records(merchant)).toBe(0);

    expectStatus(await sale(keyed(key, as(merchant))), 200);
    expect(await payments(merchant)).toBe(1);
  });
});

describe('declines are stored', () => {
  it('a declined keyed sale replays the identical decline and still writes no payment', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const body = saleBody({
      creditCard: { ...saleBody().creditCard, cardNumber: DECLINING_VISA },
    });
    const first = await sale(keyed(key, as(merchant)), body);
    expectError(first, 400, 'DO_NOT_HONOR', 14002);
    expect(await records(merchant, key)).toBe(1);

    const again = await sale(keyed(key, as(merchant)), body);
    expect(await payments(merchant)).toBe(0);
    expectReplay(again, first, key);
  });

  it('many concurrent keyed declines, more than core has connections, each report one Decline', async () => {
    // Core runs with 8 connections here; a decline's event is written in its key's own transaction.
    const merchant = await stack.newMerchant();
    const config = hookConfig('http://127.0.0.1:9/ipn', ['sendDecline']);
    expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
    const body = saleBody({ amount: 10.51 }); // INSUFFICIENT_FUNDS
    const keys = Array.from({ length: 20 }, newKey);
    const replies = await Promise.all(keys.map((key) => sale(keyed(key, as(merchant)), body)));
    for (const reply of replies) expectError(reply, 400, 'INSUFFICIENT_FUNDS', 14002);
    const replays = await Promise.all(keys.slice(0, 5).map((key) => sale(keyed(key, as(merchant)), body)));
    for (const [index, again] of replays.entries()) {
      expectReplay(again, replies[index] as Reply, keys[index] as string);
    }
    const declines = () =>
      count("select count(*) from ipn_delivery where merchant_id = $1 and event = 'Decline'", [merchant.id]);
    expect(await declines()).toBe(20);
    expectStatus(await sale(as(merchant)), 200); // and core still answers
  });
});

describe('merchant scope', () => {
  it('the same key and body at another merchant is another request', async () => {
    const [a, b] = [await stack.newMerchant(), await stack.newMerchant()];
    const key = newKey();
    const atA = expectStatus(await sale(keyed(key, as(a))), 200);
    const atB = expectStatus(await sale(keyed(key, as(b))), 200);
    expect(atB.body.transactionId).not.toBe(atA.body.transactionId);
    expect(await payments(a)).toBe(1);
    expect(await payments(b)).toBe(1);
    // Each merchant replays its own answer.
    const [againA, againB] = [await sale(keyed(key, as(a))), await sale(keyed(key, as(b)))];
    expect([await payments(a), await payments(b)]).toEqual([1, 1]);
    expectReplay(againA, atA, key);
    expectReplay(againB, atB, key);
  });
});

describe('concurrent duplicates', () => {
  it('50 identical keyed sales at once: one payment; the rest 409 60102 or its replay', async () => {
    const merchant = await stack.newMerchant();
    expectStatus(await api.get('/sandbox/clock', as(merchant)), 200); // credentials checked and cached once
    const key = newKey();
    const replies = await Promise.all(Array.from({ length: 50 }, () => sale(keyed(key, as(merchant)))));

    const ok = replies.filter((reply) => reply.status === 200);
    const busy = replies.filter((reply) => reply.status === 409);
    expect(ok.length + busy.length, replies.map((r) => r.status).join(',')).toBe(50);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((reply) => reply.body.transactionId)).size).toBe(1);
    for (const reply of busy)
      expectError(reply, 409, 'REQUEST_WITH_SAME_IDEMPOTENCY_KEY_ALREADY_IN_PROGRESS', 60102);
    expect(await payments(merchant)).toBe(1);
  });
});

describe('retention: 24 hours by the merchant clock', () => {
  it('replays after 23 hours; after 25 the same key runs anew', async () => {
    const merchant = await stack.newMerchant();
    const key = newKey();
    const first = expectStatus(await sale(keyed(key, as(merchant))), 200);

    await advanceClock(merchant, 'PT23H');
    const within = await sale(keyed(key, as(merchant)));
    expect(await payments(merchant)).toBe(1);
    expectReplay(within, first, key);

    await advanceClock(merchant, 'PT2H');
    const fresh = expectStatus(await sale(keyed(key, as(merchant))), 200);
    expect(fresh.body.transactionId).not.toBe(first.body.transactionId);
    expect(await payments(merchant)).toBe(2);
    // The new answer is the one kept now, for another 24 hours: a retry replays it, pays nothing more.
    const again = await sale(keyed(key, as(merchant)));
    expect(again.body.transactionId, again.text).toBe(fresh.body.transactionId);
    expect(await payments(merchant)).toBe(2);
    expectReplay(again, fresh, key);
  });

  it('the sweep removes records past 24 hours of their merchant, and only those', async () => {
    const [old, current] = [await stack.newMerchant(), await stack.newMerchant()];
    const [oldKey, currentKey] = [newKey(), newKey()];
    expectStatus(await sale(keyed(oldKey, as(old))), 200);
    expectStatus(await sale(keyed(currentKey, as(current))), 200);
    await advanceClock(old, 'PT25H');

    // The scheduled sweep (every 10 minutes) may have run this same code just before; the rows tell.
    const swept = await sweepExpiredRecords(stack.core.services.orm.em.fork(), stack.core.services.mode);
    expect(swept).toBeGreaterThanOrEqual(0);
    expect(await records(old, oldKey)).toBe(0);
    expect(await records(current, currentKey)).toBe(1);
  });

  describe('in live mode', () => {
    let live: Stack;
    beforeAll(async () => {
      live = await startLiveStack();
    });
    afterAll(() => live?.close());

    it('the sweep goes by real time: a sandbox clock offset left on the merchant removes nothing early', async () => {
      const liveApi = client(live);
      const [kept, expired] = [newKey(), newKey()];
      for (const key of [kept, expired])
        expectStatus(
          await liveApi.post('/transactions', saleBody({ creditCard: adyenTestCard }), keyed(key)),
          200,
        );
      // Days of sandbox clock left on the merchant: live mode does not count them, for answers or the sweep.
      const merchantId = live.merchant.id;
      await live.db.query('update merchant set clock_offset_seconds = $1 where id = $2', [
        3 * 86_400,
        merchantId,
      ]);
      await live.db.query(
        "update idempotency_record set expires_at = now() - interval '1 minute' where merchant_id = $1 and key = $2",
        [merchantId, expired],
      );
      await sweepExpiredRecords(live.core.services.orm.em.fork(), live.core.services.mode);
      const { rows } = await live.db.query<{ key: string }>(
        'select key from idempotency_record where merchant_id = $1',
        [merchantId],
      );
      expect(rows.map((row) => row.key)).toEqual([kept]);
    });
  });
});
