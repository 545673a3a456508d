import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Job, PgBoss } from 'pg-boss';
import { IpnDelivery } from './entities.ts';
import { deliveryExpirySeconds, deliveryQueue } from './queue.ts';
import { ipnSecret } from './secret.ts';
import { guardedLookup, refusedAddress } from './targets.ts';

export interface DeliverySettings {
  /** First retry delay; pg-boss doubles it (with jitter) up to a day. */
  retryDelaySeconds: number;
  /** Loopback and private targets: on in sandbox, off in live. */
  allowPrivateTargets: boolean;
  /** Per attempt; the decisions say 10 s. */
  timeoutMs: number;
}

const responseReadLimit = 64 * 1024;

/** Standard Webhooks: HMAC-SHA256 over "id.timestamp.body" with the base64 part of the whsec_ secret. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

type Attempt = { ok: true; status: number } | { ok: false; status?: number; error: string; final?: boolean };

/**
 * One POST. Redirects are not followed (node:http never does) and not acknowledgements; at most a bounded
 * part of the answer is read, only its status matters; the connection may only reach public addresses
 * unless private targets are allowed.
 */
function send(
  url: string,
  headers: Record<string, string>,
  body: string,
  settings: DeliverySettings,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const transport = target.protocol === 'https:' ? https : http;
    const request = transport.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(settings.allowPrivateTargets),
        signal: AbortSignal.timeout(settings.timeoutMs),
      },
      (response) => {
        resolve(response.statusCode ?? 0);
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.byteLength;
          if (read > responseReadLimit) response.destroy();
        });
        response.on('error', () => {});
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function post(delivery: IpnDelivery, secret: string, settings: DeliverySettings): Promise<Attempt> {
  const refused = refusedAddress(delivery.destination, settings.allowPrivateTargets);
  if (refused) return { ok: false, error: refused, final: true };
  const id = `ipn_${delivery.id}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    'user-agent': 'Paywire-IPN/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, id, timestamp, delivery.body),
  };
  try {
    const status = await send(delivery.destination, headers, delivery.body, settings);
    return status >= 200 && status < 300
      ? { ok: true, status }
      : { ok: false, status, error: `answered ${status}` };
  } catch (error) {
    const { name, message, code } = error as Error & { code?: string };
    if (code === 'EPRIVATETARGET') return { ok: false, error: message, final: true };
    return { ok: false, error: name === 'AbortError' || name === 'TimeoutError' ? 'timed out' : message };
  }
}

/**
 * One attempt at one delivery. Throwing hands the job back to pg-boss, which retries it with backoff in
 * real time (the merchant's sandbox clock never slows it); the last attempt or a refused target ends it.
 */
export async function attemptDelivery(
  em: EntityManager,
  deliveryId: number,
  settings: DeliverySettings,
): Promise<void> {
  const delivery = await em.findOne(IpnDelivery, { id: deliveryId });
  if (!delivery || delivery.state === 'delivered') return;
  // Counted before the POST: an attempt cut short by a crash still counts, as it does for pg-boss.
  delivery.attempts += 1;
  await em.flush();
  const attempt = await post(delivery, await ipnSecret(em, delivery.merchantId), settings);
  delivery.lastStatus = attempt.status ?? null;
  if (attempt.ok) {
    Object.assign(delivery, {
      state: 'delivered',
      deliveredAt: new Date(),
      lastError: null,
      nextTryAt: null,
    });
    await em.flush();
    return;
  }
  const final = attempt.final === true || delivery.attempts >= delivery.maxAttempts;
  delivery.lastError = attempt.error.slice(0, 200);
  delivery.state = final ? 'failed' : 'pending';
  // The earliest next try: pg-boss adds up to as much again as jitter.
  const backoff = settings.retryDelaySeconds * 2 ** Math.min(16, delivery.attempts - 1);
  delivery.nextTryAt = final ? null : new Date(Date.now() + Math.min(backoff, 86_400) * 1000);
  await em.flush();
  if (!final) throw new Error(`IPN delivery ${deliveryId}: ${attempt.error}`);
}

export async function startDeliveryWorkers(
  jobs: PgBoss,
  em: () => EntityManager,
  settings: DeliverySettings,
): Promise<void> {
  await jobs.createQueue(deliveryQueue, { expireInSeconds: deliveryExpirySeconds(settings) });
  await jobs.work<{ deliveryId: number }>(
    deliveryQueue,
    // Idle, 16 workers poll every 2 s (each poll is a query, and idle polling competes with sales); while
    // deliveries wait they burst, fetching again at once.
    { batchSize: 1, localConcurrency: 16, pollingIntervalSeconds: 2, burstWhenReadyExceeds: 1 },
    async ([job]: Job<{ deliveryId: number }>[]) => {
      if (job) await attemptDelivery(em(), job.data.deliveryId, settings);
    },
  );
}
