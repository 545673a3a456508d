import http from 'node:http';
import { injectTraceContext, inSpan, SpanKind, tracingEnabled } from '@paywire/observability';

interface RequestInit {
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal | null;
}

/**
 * How long a pooled socket may sit idle before the pool closes it itself. A server closing an idle socket
 * races a request just sent on it (the request fails unread, and the facade answers 503), so the pool
 * closes first: well inside core's 65 s keep-alive, and the 2 s a drain leaves an idle socket to its
 * client (contracts' drain.ts). On a socket with a request in flight the timer only emits an event, which
 * nothing here acts on.
 */
const idleSocketMs = 1_000;

/**
 * What the tRPC link needs of fetch (it reads only `json()`), over node:http with pooled keep-alive
 * sockets. Node's global fetch costs several times the CPU per call, and every request of the facade
 * makes one such call to core.
 */
export function keepAliveFetch(maxSockets: number) {
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets,
    keepAliveMsecs: 30_000,
    timeout: idleSocketMs,
  });
  const send = (url: string | URL, init: RequestInit, headers: Record<string, string> | undefined) =>
    new Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>((resolve, reject) => {
      const request = http.request(
        url,
        { agent, method: init.method ?? 'GET', headers, signal: init.signal ?? undefined },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ ok: status >= 200 && status < 300, status, json: async () => JSON.parse(text) });
          });
        },
      );
      request.on('error', reject);
      request.end(init.body);
    });
  // With tracing on, each call is a client span whose context travels to core as traceparent.
  return (url: string | URL, init: RequestInit = {}) => {
    if (!tracingEnabled()) return send(url, init, init.headers);
    const procedure = new URL(url).pathname.split('/').at(-1) ?? '';
    return inSpan('@paywire/client', `trpc ${procedure}`, { kind: SpanKind.CLIENT }, async (span) => {
      const headers = { ...init.headers };
      injectTraceContext(headers);
      const response = await send(url, init, headers);
      span?.setAttribute('http.response.status_code', response.status);
      return response;
    });
  };
}
