import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTracing, type Tracing } from '@paywire/observability';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectStatus, saleBody } from '../support/http.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Traces through the real stack: a local OTLP/HTTP receiver on 127.0.0.1 takes what the exporter sends
 * (OTLP JSON), and one sale's trace runs facade -> tRPC client -> core -> PostgreSQL.
 */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
}

let receiver: Server;
let tracing: Tracing | null;
let stack: Stack;
/** OTLP's SPAN_KIND_SERVER. */
const serverKind = 2;
const spans: ReceivedSpan[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { scopeSpans: { spans: ReceivedSpan[] }[] }[];
      };
      for (const resource of body.resourceSpans)
        for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  tracing = await startTracing('paywire-test', `http://127.0.0.1:${port}`);
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
  await tracing?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('traces', () => {
  it('follow one sale from the facade through the tRPC hop into core and its PostgreSQL statements', async () => {
    const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const sale = await client(stack).post('/transactions', saleBody(), {
      headers: { traceparent: incoming },
    });
    expectStatus(sale, 200);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const inTrace = await waitFor('the sale trace exported', async () => {
      await tracing?.flush();
      const found = spans.filter((span) => span.traceId === traceId);
      return found.some((span) => span.name === 'POST /services/2/transactions') && found;
    });
    const byName = (name: string) => inTrace.find((span) => span.name === name);
    const facade = byName('POST /services/2/transactions');
    const hop = byName('trpc cards.create');
    const core = byName('cards.create');
    // The caller's traceparent is the facade span's parent: one trace across a proxy or a caller too.
    expect(facade?.parentSpanId).toBe('00f067aa0ba902b7');
    expect(hop?.parentSpanId).toBe(facade?.spanId);
    expect(core?.parentSpanId).toBe(hop?.spanId);
    // Every statement descends from a core span of a call (the sale's, or the login check before it).
    const byId = new Map(inTrace.map((span) => [span.spanId, span]));
    const callOf = (span: ReceivedSpan): ReceivedSpan | undefined => {
      let ancestor = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId);
      while (ancestor && !(ancestor.kind === serverKind && ancestor.name !== facade?.name))
        ancestor = ancestor.parentSpanId === undefined ? undefined : byId.get(ancestor.parentSpanId);
      return ancestor;
    };
    const statements = inTrace.filter((span) => span.name.startsWith('pg '));
    for (const statement of statements) expect(callOf(statement), statement.name).toBeDefined();
    const ofSale = statements.filter((statement) => callOf(statement) === core);
    expect(ofSale.length).toBeGreaterThan(0);
  });
});
