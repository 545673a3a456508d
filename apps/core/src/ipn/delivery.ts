import { createHmac } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Job, PgBoss } from 'pg-boss';
import { IpnDelivery } from './entities.ts';
import { deliveryQueue } from './events.ts';
import { ipnSecret } from './secret.ts';
import { refusedTarget } from './targets.ts';

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

/** Reads at most a bounded part of the receiver's answer; only its status matters. */
async function drain(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  let read = 0;
  while (reader && read < responseReadLimit) {
    const { done, value } = await reader.read();
    if (done) return;
    read += value.byteLength;
  }
  await reader?.cancel();
}

type Attempt = { ok: true; status: number } | { ok: false; status?: number; error: string; final?: boolean };

async function post(delivery: IpnDelivery, secret: string, settings: DeliverySettings): Promise<Attempt> {
  const refused = await refusedTarget(delivery.destination, settings.allowPrivateTargets).catch(
    (error: Error) => `cannot resolve: ${error.message}`,
  );
  if (refused) return { ok: false, error: refused, final: true };
  const id = `ipn_${delivery.id}`;
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const response = await fetch(delivery.destination, {
      method: 'POST',
      redirect: 'manual', // a redirect is not an acknowledgement, and is never followed
      signal: AbortSignal.timeout(settings.timeoutMs),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'Paywire-IPN/1',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(secret, id, timestamp, delivery.body),
      },
      body: delivery.body,
    });
    await drain(response).catch(() => {});
    return response.status >= 200 && response.status < 300
      ? { ok: true, status: response.status }
      : { ok: false, status: response.status, error: `answered ${response.status}` };
  } catch (error) {
    return {
      ok: false,
      error: (error as Error).name === 'TimeoutError' ? 'timed out' : (error as Error).message,
    };
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
  const attempt = await post(delivery, await ipnSecret(em, delivery.merchantId), settings);
  delivery.attempts += 1;
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
  await jobs.createQueue(deliveryQueue);
  await jobs.work<{ deliveryId: number }>(
    deliveryQueue,
    { batchSize: 1, localConcurrency: 16, pollingIntervalSeconds: 0.5 },
    async ([job]: Job<{ deliveryId: number }>[]) => {
      if (job) await attemptDelivery(em(), job.data.deliveryId, settings);
    },
  );
}
