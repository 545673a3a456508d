import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { inSpan, SpanKind, SpanStatusCode, tracingEnabled } from '@paywire/observability';
import { guardedLookup } from './targets.ts';

export type Attempt =
  | { ok: true; status: number }
  | { ok: false; status?: number; error: string; refused?: boolean };

export interface SenderSettings {
  /** Loopback and private targets: on in sandbox, off in live. */
  allowPrivateTargets: boolean;
  /** Per attempt; the decisions say 10 s. */
  timeoutMs: number;
  /** Connections (and so attempts in flight) per destination. */
  connectionsPerDestination: number;
}

/** Only the status matters: at most this much of an answer is read, then the connection is dropped. */
const responseReadLimit = 8 * 1024;
/** A destination's pool is closed after this long unused. */
const idlePoolMs = 5 * 60_000;

interface Pool {
  agent: http.Agent;
  usedAt: number;
}

/**
 * POSTs to receivers over keep-alive connections, one pool per destination, so a slow receiver holds only
 * its own sockets. Redirects are not followed (node:http never does) and are no acknowledgement; names
 * resolve through the guarded lookup on every new connection, so live mode never reaches a private address.
 */
export class Sender {
  readonly #pools = new Map<string, Pool>();
  readonly #lookup: LookupFunction;
  readonly #settings: SenderSettings;

  constructor(settings: SenderSettings) {
    this.#settings = settings;
    this.#lookup = guardedLookup(settings.allowPrivateTargets);
  }

  post(url: string, headers: Record<string, string>, body: string): Promise<Attempt> {
    if (!tracingEnabled()) return this.#attempt(url, headers, body);
    const attributes = { 'server.address': new URL(url).host, 'webhook.id': headers['webhook-id'] ?? '' };
    return inSpan('paywire-core', 'POST ipn', { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const attempt = await this.#attempt(url, headers, body);
      if (!attempt.ok) span?.setStatus({ code: SpanStatusCode.ERROR, message: attempt.error });
      if (attempt.status !== undefined) span?.setAttribute('http.response.status_code', attempt.status);
      return attempt;
    });
  }

  async #attempt(url: string, headers: Record<string, string>, body: string): Promise<Attempt> {
    try {
      const status = await this.#send(url, headers, body, true);
      return status >= 200 && status < 300
        ? { ok: true, status }
        : { ok: false, status, error: `answered ${status}` };
    } catch (error) {
      const { name, message, code } = error as Error & { code?: string };
      if (code === 'EPRIVATETARGET') return { ok: false, error: message, refused: true };
      return { ok: false, error: name === 'AbortError' || name === 'TimeoutError' ? 'timed out' : message };
    }
  }

  /** Closes the pools of destinations not used for a while. */
  dropIdle(now = Date.now()): void {
    for (const [url, pool] of this.#pools) {
      if (now - pool.usedAt > idlePoolMs) {
        pool.agent.destroy();
        this.#pools.delete(url);
      }
    }
  }

  close(): void {
    for (const pool of this.#pools.values()) pool.agent.destroy();
    this.#pools.clear();
  }

  #agent(target: URL, url: string): http.Agent {
    let pool = this.#pools.get(url);
    if (!pool) {
      const options = {
        keepAlive: true,
        maxSockets: this.#settings.connectionsPerDestination,
        scheduling: 'lifo' as const, // the warmest socket first, so idle ones time out
      };
      const agent = target.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      pool = { agent, usedAt: 0 };
      this.#pools.set(url, pool);
    }
    pool.usedAt = Date.now();
    return pool.agent;
  }

  #send(url: string, headers: Record<string, string>, body: string, mayRetry: boolean): Promise<number> {
    const target = new URL(url);
    const transport = target.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = transport.request(
        target,
        {
          method: 'POST',
          agent: this.#agent(target, url),
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          lookup: this.#lookup,
          signal: AbortSignal.timeout(this.#settings.timeoutMs),
        },
        (response) => {
          resolve(response.statusCode ?? 0);
          // Read to the end to keep the connection, unless the answer is long.
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.byteLength;
            if (read > responseReadLimit) response.destroy();
          });
          response.on('error', () => {});
        },
      );
      request.on('error', (error: Error & { code?: string }) => {
        // A kept-alive connection the receiver closed as we reused it: the request never reached it.
        if (mayRetry && request.reusedSocket && error.code === 'ECONNRESET') {
          this.#send(url, headers, body, false).then(resolve, reject);
        } else reject(error);
      });
      request.end(body);
    });
  }
}
