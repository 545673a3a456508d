import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { coreRegistry } from '@paywire/core';
import { facadeRegistry } from '@paywire/facade';
import { type MetricsServer, serveMetrics } from '@paywire/observability';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, saleBody } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { rawExchange, rawRequest } from '../support/raw-http.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Logs, request ids and metrics through the real stack: the facade's X-Request-Id reaches core's log lines
 * and the IPN delivery log; the Prometheus text of both processes moves with traffic; no card data,
 * credential or password reaches a log line.
 */
let stack: Stack;
let api: ReturnType<typeof client>;
let receiver: IpnReceiver;
let merchant: TestMerchant;
let facadeMetrics: MetricsServer;
let coreMetrics: MetricsServer;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  [facadeMetrics, coreMetrics] = await Promise.all([
    serveMetrics(facadeRegistry, 0, '127.0.0.1'),
    serveMetrics(coreRegistry, 0, '127.0.0.1'),
  ]);
  api = client(stack);
  merchant = await stack.newMerchant();
  const config = hookConfig(receiver.newHook(), ['sendCharge']);
  expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
});

afterAll(async () => {
  await Promise.all([facadeMetrics?.close(), coreMetrics?.close()]);
  await stack?.close();
  await receiver?.close();
});

async function scrape(server: MetricsServer): Promise<string> {
  const response = await fetch(server.url);
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one sample (0 when the series does not exist yet). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).split(' ')[0] ?? '';
    if (wanted.every((pair) => labelText.includes(pair))) return Number(line.split(' ').at(-1));
  }
  return 0;
}

const linesWith = (text: string) => stack.logs.filter((line) => line.includes(text));

describe('request ids', () => {
  it('echoes a valid X-Request-Id and carries it into core log lines and the delivery log', async () => {
    const requestId = `sale-${randomUUID()}`;
    const reply = expectStatus(
      await api.post('/transactions', saleBody(), as(merchant, { headers: { 'x-request-id': requestId } })),
      200,
    );
    expect(reply.headers.get('x-request-id')).toBe(requestId);
    const facadeLine = JSON.parse(
      linesWith(requestId).find((line) => line.includes('"service":"facade"')) ?? '{}',
    );
    expect(facadeLine).toMatchObject({ message: 'request', route: '/services/2/transactions', status: 200 });
    const coreLines = linesWith(requestId)
      .filter((line) => line.includes('"service":"core"'))
      .map((line) => JSON.parse(line));
    expect(coreLines).toContainEqual(
      expect.objectContaining({ message: 'call', procedure: 'cards.create', outcome: 'ok', requestId }),
    );

    const entry = await waitFor('the delivery of the sale', async () => {
      const page = expectStatus(await api.get('/notification-deliveries', as(merchant)), 200).body;
      const found = page.notificationDeliveries.find(
        (delivery: { referenceNumber: string }) =>
          delivery.referenceNumber === String(reply.body.transactionId),
      );
      return found?.state === 'delivered' && found;
    });
    expect(entry.requestId).toBe(requestId);
  });

  it('gives an answer without one a new id, errors included', async () => {
    const reply = expectStatus(await api.get('/transactions/999999999', as(merchant)), 404);
    expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const unauthenticated = expectStatus(await api.get('/transactions/1', { merchant: null }), 401);
    expect(unauthenticated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(unauthenticated.headers.get('x-request-id')).not.toBe(reply.headers.get('x-request-id'));
  });

  it("gives one to the answers Node's parser writes itself (an unknown method, an unmet Expect)", async () => {
    const unknownMethod = await rawExchange(stack.baseUrl, rawRequest('FOO', '/services/2/transactions'));
    expect(unknownMethod.status).toBe(405);
    expect(unknownMethod.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const expectation = await rawExchange(
      stack.baseUrl,
      rawRequest('GET', '/services/2/transactions/1', { expect: 'teapot', 'x-request-id': 'expect-1' }),
    );
    expect(expectation.status).toBe(417);
    expect(expectation.headers['x-request-id']).toBe('expect-1');
  });

  it('replaces an X-Request-Id that is too long or carries characters a log line should not', async () => {
    for (const sent of ['x'.repeat(129), 'two words', 'line"break', '']) {
      const reply = expectStatus(
        await api.get('/transactions/999999999', as(merchant, { headers: { 'x-request-id': sent } })),
        404,
      );
      const echoed = reply.headers.get('x-request-id');
      expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
      expect(echoed).not.toBe(sent);
    }
  });
});

describe('metrics', () => {
  it('counts a sale in the request histogram by route pattern and in the procedure histogram', async () => {
    const route = { route: '/services/2/transactions/:transactionId', method: 'GET', status: '200' };
    const sale = expectStatus(await api.post('/transactions', saleBody(), as(merchant)), 200).body;
    const [facadeBefore, coreBefore] = await Promise.all([scrape(facadeMetrics), scrape(coreMetrics)]);
    expectStatus(await api.get(`/transactions/${sale.transactionId}`, as(merchant)), 200);
    const [facadeAfter, coreAfter] = await Promise.all([scrape(facadeMetrics), scrape(coreMetrics)]);
    const count = 'http_request_duration_seconds_count';
    expect(sample(facadeAfter, count, route) - sample(facadeBefore, count, route)).toBe(1);
    expect(facadeAfter).not.toContain(`/transactions/${sale.transactionId}"`); // never the raw path
    const procedure = { procedure: 'cards.get', outcome: 'ok' };
    const calls = 'trpc_procedure_duration_seconds_count';
    expect(sample(coreAfter, calls, procedure) - sample(coreBefore, calls, procedure)).toBe(1);
  });

  it('counts a decline by its reason, a keyed replay, and an IPN delivery', async () => {
    const before = await scrape(coreMetrics);
    const declined = await api.post('/transactions', saleBody({ amount: 10.51 }), as(merchant));
    expect(declined.body.message[0].errorName, declined.text).toBe('INSUFFICIENT_FUNDS');
    const key = randomUUID();
    const keyed = as(merchant, { headers: { 'idempotency-key': key } });
    const first = expectStatus(await api.post('/transactions', saleBody(), keyed), 200);
    const again = expectStatus(await api.post('/transactions', saleBody(), keyed), 200);
    expect(again.body.transactionId).toBe(first.body.transactionId);
    const delivered = (text: string) =>
      sample(text, 'paywire_ipn_deliveries_total', { outcome: 'delivered' });
    const after = await waitFor('the sale delivered', async () => {
      const text = await scrape(coreMetrics);
      return delivered(text) > delivered(before) && text;
    });
    const reason = { reason: 'INSUFFICIENT_FUNDS' };
    expect(
      sample(after, 'paywire_declines_total', reason) - sample(before, 'paywire_declines_total', reason),
    ).toBe(1);
    const replay = { outcome: 'replay' };
    expect(
      sample(after, 'paywire_idempotency_total', replay) -
        sample(before, 'paywire_idempotency_total', replay),
    ).toBe(1);
    expect(sample(after, 'paywire_ipn_delivery_lag_seconds_count')).toBeGreaterThan(0);
  });

  it('shows the database pool and the pg-boss queues when scraped', async () => {
    const text = await scrape(coreMetrics);
    expect(sample(text, 'paywire_db_pool_connections')).toBeGreaterThan(0);
    expect(text).toMatch(/^pgboss_queue_depth\{queue="[^"]+",state="queued"\} \d+$/m);
    expect(text).toMatch(/^paywire_ipn_backlog \d+$/m);
  });
});

describe('alert rules and dashboard (infra/observability)', () => {
  it('use only metrics the processes export', async () => {
    const exported = `${await scrape(facadeMetrics)}\n${await scrape(coreMetrics)}`;
    const sources = ['infra/observability/alerts.yaml', 'infra/observability/dashboard.json'].map((path) =>
      readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'),
    );
    const ours = /\b(?:paywire|pgboss|http_request|trpc_procedure)_[a-z_]+/g;
    const used = new Set(sources.flatMap((text) => text.match(ours) ?? []));
    expect(used.size).toBeGreaterThan(10);
    for (const name of used) {
      const family = name.replace(/_(bucket|count|sum)$/, '');
      expect(exported, name).toContain(`# TYPE ${family} `);
    }
  });
});

describe('logs', () => {
  it('never hold card data, credentials or passwords', async () => {
    // not vacuous: the sales above were logged by both processes, with their bodies' neighbours
    expect(linesWith('"procedure":"cards.create"').length).toBeGreaterThan(2);
    expect(linesWith('"message":"request"').length).toBeGreaterThan(2);
    const logs = stack.logs.join('\n');
    const card = saleBody().creditCard;
    // the secret after `pwc_<id>_` is base64url, so it may itself hold '_'
    const callerSecret = stack.facadeCredential.replace(/^pwc_\d+_/, '');
    expect(callerSecret).toMatch(/^[\w-]{43}$/);
    for (const secret of [
      card.cardNumber,
      card.cardNumber.slice(6),
      `"${card.securityCode}"`,
      stack.facadeCredential,
      callerSecret,
      merchant.password,
      merchant.authorization,
    ]) {
      expect(logs).not.toContain(secret);
    }
  });
});
