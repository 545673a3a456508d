import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Answer, type Checkout, serviceError } from './checkout.ts';
import type { Operation, Spec } from './spec.ts';

/**
 * The HTTP face of the fake: Adyen's checks in Adyen's order (API key, then the request against the
 * document, then the merchant account), the faults a test asked for, `Idempotency-Key` replays, and
 * every answer checked against the document before it leaves.
 */

export type Fault = {
  path: Operation | 'any';
  /** How many matching requests it applies to; 1 unless given. */
  times?: number;
  kind:
    | 'timeout' // never answers (the socket is held until the client gives up) and does not process
    | 'error500' // answers 500 in Adyen's error shape without processing
    | 'slow' // processes, then answers after `ms`
    | 'approve-then-drop'; // processes, then destroys the socket without answering
  ms?: number;
};

export interface RecordedRequest {
  path: string;
  body: unknown;
  idempotencyKey?: string;
}

export interface ServerOptions {
  apiKey: string;
  merchantAccount: string;
  latencyMs: () => number;
  spec: Spec;
  checkout: Checkout;
}

interface Stored {
  request: string;
  status: number;
  bytes: Buffer;
}

const routes: Array<[RegExp, Operation]> = [
  [/^\/payments$/, 'payments'],
  [/^\/payments\/([^/]+)\/captures$/, 'captures'],
  [/^\/payments\/([^/]+)\/cancels$/, 'cancels'],
  [/^\/payments\/([^/]+)\/refunds$/, 'refunds'],
  [/^\/payments\/([^/]+)\/reversals$/, 'reversals'],
  [/^\/cancels$/, 'technical-cancel'],
];

export const basePath = '/v72';

export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  readonly violations: string[] = [];
  private readonly faults: Fault[] = [];
  private readonly answered = new Map<string, Stored>();
  private readonly options: ServerOptions;
  private readonly server: Server;

  constructor(options: ServerOptions) {
    this.options = options;
    this.server = createServer((request, response) => {
      this.serve(request, response).catch((error: unknown) => {
        // The fake itself went wrong (an answer the document refuses): say so loudly.
        this.violations.push(`fake Adyen failed: ${error instanceof Error ? error.message : String(error)}`);
        if (!response.headersSent)
          this.write(response, serviceError(500, '000', 'Internal error', 'internal'));
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}${basePath}`;
  }

  fault(next: Fault): void {
    this.faults.push({ ...next, times: next.times ?? 1 });
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections(); // including the sockets a timeout fault is holding
    await closed;
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const pathname = new URL(request.url ?? '/', 'http://fake').pathname;
    const versioned = pathname.startsWith(`${basePath}/`);
    const path = versioned ? pathname.slice(basePath.length) : pathname;
    const header = request.headers['idempotency-key'];
    const idempotencyKey = typeof header === 'string' ? header : undefined;
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text: recorded as sent, then refused below
    }
    this.requests.push({ path, body, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) });

    const route = request.method === 'POST' && versioned ? routes.find(([p]) => p.test(path)) : undefined;
    if (!route) {
      this.violations.push(`${request.method} ${request.url}: no such Checkout operation in the fake`);
      return this.write(response, serviceError(404, '000', 'Not found', 'validation'));
    }
    const [pattern, operation] = route;
    const answer = (a: Answer): void => this.answer(response, operation, a);

    if (request.headers['x-api-key'] !== this.options.apiKey)
      return answer(serviceError(401, '000', 'HTTP Status Response - Unauthorized', 'security'));
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return answer(
        serviceError(400, '702', 'Unexpected input: the body is not a JSON object', 'validation'),
      );
    const violation = this.options.spec.request(operation, body);
    if (violation) {
      this.violations.push(violation.text);
      return answer(serviceError(422, '702', violation.message, 'validation'));
    }
    const fields = body as Record<string, unknown>;
    if (fields.merchantAccount !== this.options.merchantAccount)
      return answer(serviceError(422, '901', 'Invalid Merchant Account', 'security'));

    const fault = this.takeFault(operation);
    if (fault?.kind === 'timeout') return; // held open; close() or the client ends it
    if (fault?.kind === 'error500') {
      await sleep(this.options.latencyMs());
      return answer(serviceError(500, '000', 'Internal error', 'internal'));
    }

    const stored = idempotencyKey === undefined ? undefined : this.answered.get(idempotencyKey);
    let reply: Stored;
    if (stored && stored.request !== text) {
      // A key reused for another request is the caller's bug: refused (the error code is the fake's
      // choice) and flagged, rather than silently answered with another request's result.
      this.violations.push(`Idempotency-Key ${idempotencyKey} reused with a different request body`);
      return answer(
        serviceError(422, '704', 'Idempotency key reused with a different request', 'validation'),
      );
    } else if (stored) {
      reply = stored;
    } else {
      const processed = this.options.checkout.handle(
        operation,
        fields,
        decodeURIComponent(path.match(pattern)?.[1] ?? ''),
      );
      reply = { request: text, status: processed.status, bytes: this.encode(operation, processed) };
      if (idempotencyKey !== undefined) this.answered.set(idempotencyKey, reply);
    }

    if (fault?.kind === 'approve-then-drop') {
      response.socket?.destroy();
      return;
    }
    await sleep(fault?.kind === 'slow' ? (fault.ms ?? 0) : this.options.latencyMs());
    this.send(response, reply.status, reply.bytes, idempotencyKey);
  }

  private takeFault(operation: Operation): Fault | undefined {
    const index = this.faults.findIndex((f) => f.path === 'any' || f.path === operation);
    const fault = this.faults[index];
    if (!fault) return undefined;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    return fault;
  }

  /** Serialises an answer after checking it against the document; a bad one is the fake's own bug. */
  private encode(operation: Operation, answer: Answer): Buffer {
    const violation = this.options.spec.response(operation, answer.status, answer.body);
    if (violation) throw new Error(`invalid answer: ${violation.text}`);
    return Buffer.from(JSON.stringify(answer.body));
  }

  private answer(response: ServerResponse, operation: Operation, answer: Answer): void {
    this.send(response, answer.status, this.encode(operation, answer));
  }

  private write(response: ServerResponse, answer: Answer): void {
    this.send(response, answer.status, Buffer.from(JSON.stringify(answer.body)));
  }

  private send(response: ServerResponse, status: number, bytes: Buffer, idempotencyKey?: string): void {
    response.writeHead(status, {
      'content-type': 'application/json;charset=UTF-8',
      'content-length': bytes.length,
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    });
    response.end(bytes);
  }
}
