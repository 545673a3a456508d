import type { NotificationDeliveryPage } from '@paywire/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type CallOptions, client, expectStatus, type Reply, saleBody } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { freePort } from '../support/ports.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The merchant's IPN delivery log and redelivery over /services/2 (ours: GET /notification-deliveries,
 * POST /notification-deliveries/{id}/redeliver), JSON and XML, with real sales making real deliveries:
 * one destination that acknowledges, one whose port refuses connections (its deliveries stay pending).
 */

const NAMESPACE = 'http://ws.plimus.com';
const logShape = { root: 'delivery-log', wrapped: { notificationDeliveries: 'notification-delivery' } };
const entryShape = { root: 'notification-delivery' };

let stack: Stack;
let api: ReturnType<typeof client>;
let receiver: IpnReceiver;
let merchant: TestMerchant;
let hook: string;
let refusing: string;
let transactions: string[];

const list = async (query = '', options: CallOptions = {}) =>
  expectStatus(await api.get(`/notification-deliveries${query}`, as(merchant, options)), 200)
    .body as NotificationDeliveryPage;

/** A 400 VALIDATION_GENERAL_FAILURE (10001) naming the property. */
function expectInvalid(reply: Reply, property: string) {
  expect(reply.status, reply.text).toBe(400);
  const [first] = reply.body?.message ?? [];
  expect(first, reply.text).toMatchObject({ errorName: 'VALIDATION_GENERAL_FAILURE' });
  expect(Number(first?.code)).toBe(10001);
  expect(first?.invalidProperty?.name).toBe(property);
}

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  api = client(stack);
  merchant = await stack.newMerchant();
  hook = receiver.newHook();
  refusing = `http://127.0.0.1:${await freePort()}/ipn`;
  expectStatus(
    await api.post(
      '/notification-config',
      hookConfig([hook, refusing], ['sendCharge', 'sendRefund']),
      as(merchant),
    ),
    200,
  );
  transactions = [];
  for (let n = 0; n < 3; n++) {
    const sale = expectStatus(await api.post('/transactions', saleBody(), as(merchant)), 200).body;
    transactions.push(String(sale.transactionId));
  }
  expectStatus(await api.post(`/transactions/refund/${transactions[0]}`, { amount: 5 }, as(merchant)), 200);
  // 4 events x 2 destinations: the hook has all 4; each refused one, once tried, is held back from its
  // retries for an hour (as a long backoff would), so that the log stays as it is for these tests.
  const heldBack = new Set<string>();
  await waitFor('every delivery tried', async () => {
    const { rows: later } = await stack.db.query<{ id: string }>(
      `update ipn_delivery set next_try_at = now() + interval '1 hour'
        where merchant_id = $1 and destination = $2 and state = 'pending' and attempts > 0 returning id`,
      [merchant.id, refusing],
    );
    for (const row of later) heldBack.add(row.id);
    const { rows } = await stack.db.query<{ count: string }>(
      `select count(*) from ipn_delivery where merchant_id = $1 and destination = $2 and state = 'delivered'`,
      [merchant.id, hook],
    );
    return heldBack.size === 4 && Number(rows[0]?.count) === 4;
  });
});

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

describe('GET /notification-deliveries', () => {
  it('lists the merchant deliveries newest first, with their outcome, and only its own', async () => {
    const page = await list();
    expect(page.lastPage).toBe(true);
    const entries = page.notificationDeliveries;
    expect(entries).toHaveLength(8);
    const ids = entries.map((entry) => entry.deliveryId);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(entries.map((entry) => entry.event)).toEqual([
      'Refund',
      'Refund',
      'Charge',
      'Charge',
      'Charge',
      'Charge',
      'Charge',
      'Charge',
    ]);
    for (const entry of entries.filter((entry) => entry.destination === hook)) {
      expect(entry).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200, lastError: null });
      expect(entry).toMatchObject({ nextTryAt: null, maxAttempts: 11 });
      expect(Date.parse(entry.deliveredAt ?? '')).toBeGreaterThanOrEqual(Date.parse(entry.createdAt));
    }
    for (const entry of entries.filter((entry) => entry.destination === refusing)) {
      expect(entry).toMatchObject({ state: 'pending', lastStatus: null, deliveredAt: null });
      expect(entry.lastError).toMatch(/ECONNREFUSED/);
      expect(entry.nextTryAt).not.toBeNull();
    }
    const stranger = await stack.newMerchant();
    const theirs = expectStatus(await api.get('/notification-deliveries', as(stranger)), 200).body;
    expect(theirs).toEqual({ lastPage: true, notificationDeliveries: [] });
  });

  it('filters by state, event and destination, together or alone', async () => {
    const only = async (query: string) => (await list(query)).notificationDeliveries;
    const delivered = await only('?state=delivered');
    expect(delivered).toHaveLength(4);
    expect(new Set(delivered.map((entry) => entry.destination))).toEqual(new Set([hook]));
    const pending = await only('?state=pending');
    expect(pending).toHaveLength(4);
    expect(new Set(pending.map((entry) => entry.destination))).toEqual(new Set([refusing]));
    expect(await only('?state=failed')).toEqual([]);
    const refunds = await only('?event=Refund');
    expect(refunds.map((entry) => entry.referenceNumber)).toEqual([transactions[0], transactions[0]]);
    expect(await only(`?destination=${encodeURIComponent(hook)}`)).toHaveLength(4);
    const charges = await only(`?event=Charge&destination=${encodeURIComponent(hook)}&state=delivered`);
    expect(charges.map((entry) => entry.referenceNumber).sort()).toEqual([...transactions].sort());
  });

  it('pages with pagesize and after (the last deliveryId of the previous page)', async () => {
    const all = (await list()).notificationDeliveries.map((entry) => entry.deliveryId);
    const seen: number[] = [];
    const lastPages: boolean[] = [];
    let after = '';
    for (let n = 0; n < 5; n++) {
      const page = await list(`?pagesize=3${after}`);
      seen.push(...page.notificationDeliveries.map((entry) => entry.deliveryId));
      lastPages.push(page.lastPage);
      if (page.lastPage) break;
      after = `&after=${page.notificationDeliveries.at(-1)?.deliveryId}`;
    }
    expect(lastPages).toEqual([false, false, true]);
    expect(seen).toEqual(all);
  });

  it('answers in XML with the delivery-log document', async () => {
    const reply = expectStatus(
      await api.get(
        '/notification-deliveries?event=Charge&state=delivered&pagesize=1',
        as(merchant, { accept: 'application/xml', shape: logShape }),
      ),
      200,
    );
    expect(reply.headers.get('content-type')).toMatch(/application\/xml/);
    expect(reply.text).toContain(`<delivery-log xmlns="${NAMESPACE}">`);
    expect(reply.text).toMatch(
      /<last-page>false<\/last-page>\s*<notification-deliveries>\s*<notification-delivery>\s*<delivery-id>\d+<\/delivery-id>\s*<event>Charge<\/event>/,
    );
    expect(reply.body.notificationDeliveries).toHaveLength(1);
    expect(reply.body.notificationDeliveries[0]).toMatchObject({
      event: 'Charge',
      referenceNumber: transactions[2],
      state: 'delivered',
      lastStatus: '200',
    });
    // Empty values (no error, no next try) are left out, as everywhere in XML.
    expect(reply.text).toContain('<delivered-at>');
    expect(reply.text).not.toContain('<last-error');
    expect(reply.text).not.toContain('<next-try-at');
  });

  it('refuses bad filters and pages with 400 10001 naming the parameter, in JSON and XML', async () => {
    for (const [query, property] of [
      ['?pagesize=0', 'pagesize'],
      ['?pagesize=501', 'pagesize'],
      ['?pagesize=ten', 'pagesize'],
      ['?pagesize=2.5', 'pagesize'],
      ['?after=-4', 'after'],
      ['?after=x', 'after'],
      ['?state=done', 'state'],
      ['?event=CHARGE', 'event'],
      ['?state=pending&state=failed', 'state'],
    ] as const) {
      expectInvalid(await api.get(`/notification-deliveries${query}`, as(merchant)), property);
    }
    const xml = await api.get(
      '/notification-deliveries?state=done',
      as(merchant, { accept: 'application/xml' }),
    );
    expect(xml.text).toContain(`<messages xmlns="${NAMESPACE}">`);
    expectInvalid(xml, 'state');
    expect((await api.get('/notification-deliveries', { merchant: null, headers: {} })).status).toBe(401);
  });
});

describe('POST /notification-deliveries/{deliveryId}/redeliver', () => {
  it('sends a delivered IPN once more, same body and webhook-id, and logs the attempt (JSON)', async () => {
    const [entry] = (await list(`?event=Refund&destination=${encodeURIComponent(hook)}`))
      .notificationDeliveries;
    if (!entry) throw new Error('no refund delivery listed');
    const before = receiver.at(hook).filter((request) => request.params.get('transactionType') === 'REFUND');
    expect(before).toHaveLength(1);

    const reply = expectStatus(
      await api.post(`/notification-deliveries/${entry.deliveryId}/redeliver`, undefined, as(merchant)),
      200,
    );
    expect(reply.body).toMatchObject({
      deliveryId: entry.deliveryId,
      state: 'pending',
      attempts: 1,
      maxAttempts: 2,
      deliveredAt: null,
    });
    const again = await waitFor('the redelivery', () => {
      const got = receiver.at(hook).filter((request) => request.params.get('transactionType') === 'REFUND');
      return got.length === 2 && got[1];
    });
    expect(again.body).toBe(before[0]?.body);
    expect(again.headers['webhook-id']).toBe(before[0]?.headers['webhook-id']);
    const logged = await waitFor('the redelivery to be logged', async () => {
      const [latest] = (await list(`?event=Refund&destination=${encodeURIComponent(hook)}`))
        .notificationDeliveries;
      return latest?.state === 'delivered' && latest;
    });
    expect(logged).toMatchObject({ deliveryId: entry.deliveryId, attempts: 2, lastStatus: 200 });
  });

  it('answers in XML with the notification-delivery document', async () => {
    const [entry] = (await list('?state=pending&pagesize=1')).notificationDeliveries;
    if (!entry) throw new Error('no pending delivery listed');
    const reply = expectStatus(
      await api.post(
        `/notification-deliveries/${entry.deliveryId}/redeliver`,
        undefined,
        as(merchant, { accept: 'application/xml', shape: entryShape }),
      ),
      200,
    );
    expect(reply.text).toContain(`<notification-delivery xmlns="${NAMESPACE}">`);
    expect(reply.body).toMatchObject({
      deliveryId: String(entry.deliveryId),
      state: 'pending',
      destination: refusing,
    });
  });

  it("refuses an unknown id, another merchant's delivery, and an id that is not a number", async () => {
    const [entry] = (await list('?pagesize=1')).notificationDeliveries;
    if (!entry) throw new Error('no delivery listed');
    const stranger = await stack.newMerchant();
    for (const reply of [
      await api.post('/notification-deliveries/999999999/redeliver', undefined, as(merchant)),
      await api.post(`/notification-deliveries/${entry.deliveryId}/redeliver`, undefined, as(stranger)),
    ]) {
      expect(reply.status, reply.text).toBe(404);
      expect(reply.body.message).toEqual([
        {
          errorName: 'NOTIFICATION_DELIVERY_NOT_FOUND',
          code: 20030,
          description: expect.stringMatching(/^Notification delivery \d+ was not found$/),
          invalidProperty: { name: 'deliveryId', messageValue: expect.any(String) },
        },
      ]);
    }
    const [untouched] = (await list(`?pagesize=1&after=${entry.deliveryId + 1}`)).notificationDeliveries;
    expect(untouched).toMatchObject({ deliveryId: entry.deliveryId, maxAttempts: entry.maxAttempts });
    expectInvalid(
      await api.post('/notification-deliveries/abc/redeliver', undefined, as(merchant)),
      'deliveryId',
    );
    const xml = await api.post(
      '/notification-deliveries/0/redeliver',
      undefined,
      as(merchant, { accept: 'application/xml' }),
    );
    expect(xml.text).toContain('<messages');
    expectInvalid(xml, 'deliveryId');
  });
});
