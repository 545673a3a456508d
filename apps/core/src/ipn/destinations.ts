import { createHmac, type KeyObject } from 'node:crypto';
import { ipnDeliveries, ipnDeliveryLag } from '../metrics.ts';
import { type BreakerSettings, CircuitBreaker } from './breaker.ts';
import type { ClaimedDelivery, Outcome } from './delivery-leases.ts';
import type { DeliveryWriter } from './delivery-writer.ts';
import { type Attempt, Sender, type SenderSettings } from './sender.ts';

export interface DeliverySettings extends SenderSettings {
  /** First retry delay; each retry doubles it (plus up to 10% jitter), up to a day. */
  retryDelaySeconds: number;
  breaker: BreakerSettings;
}

/** A claimed delivery with its merchant's signing keys (the current secret's, then a rotated one's). */
export interface Queued extends ClaimedDelivery {
  keys: KeyObject[];
}

/** A destination as this core sees it: its deliveries waiting for a connection, those in flight, its circuit. */
interface Destination {
  waiting: Queued[];
  inFlight: number;
  breaker: CircuitBreaker;
}

/**
 * Standard Webhooks: HMAC-SHA256 over "id.timestamp.body", one signature per key, space-separated (the
 * current secret's, then during a rotation's overlap the previous one's).
 */
function signature(keys: KeyObject[], id: string, timestamp: number, body: string): string {
  return keys
    .map((key) => `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}

/** When a failed attempt is tried again: 1, 2, 4... times the first delay, at most a day, +0-10% jitter. */
function retryAt(settings: Pick<DeliverySettings, 'retryDelaySeconds'>, attempts: number): Date {
  const backoff = Math.min(86_400, settings.retryDelaySeconds * 2 ** Math.min(16, attempts - 1));
  return new Date(Date.now() + backoff * 1000 * (1 + Math.random() * 0.1));
}

function outcomeOf(delivery: ClaimedDelivery, attempt: Attempt, settings: DeliverySettings): Outcome {
  if (attempt.ok) {
    ipnDeliveries.inc({ outcome: 'delivered' });
    ipnDeliveryLag.observe((Date.now() - delivery.createdAt.getTime()) / 1000);
    return {
      id: delivery.id,
      state: 'delivered',
      status: attempt.status,
      error: null,
      nextTryAt: null,
      deliveredAt: new Date(),
    };
  }
  const final = attempt.refused === true || delivery.attempts >= delivery.maxAttempts;
  ipnDeliveries.inc({ outcome: final ? 'failed' : 'pending' });
  return {
    id: delivery.id,
    state: final ? 'failed' : 'pending',
    status: attempt.status ?? null,
    error: attempt.error.slice(0, 200),
    nextTryAt: final ? null : retryAt(settings, delivery.attempts),
    deliveredAt: null,
  };
}

/**
 * The destinations of one core's claimed deliveries: each sends at most `connectionsPerDestination` at a
 * time over its own keep-alive pool (one while its circuit is probing, none while open), and every outcome
 * goes to the writer. Circuit state is per core, in memory: it is learnt from this core's own attempts within
 * seconds, costs no write on the delivery path, and a second core only pays the same few failed attempts to
 * learn it.
 */
export class Destinations {
  readonly #destinations = new Map<string, Destination>();
  readonly #sender: Sender;
  readonly #settings: DeliverySettings;
  readonly #writer: DeliveryWriter;
  /** A destination holding this many is left out of claims; at half of it, `onRoom` asks for more. */
  readonly #claimLimit: number;
  readonly #onRoom: () => void;
  readonly #onError: (error: unknown) => void;

  constructor(options: {
    settings: DeliverySettings;
    writer: DeliveryWriter;
    claimLimit: number;
    onRoom: () => void;
    onError: (error: unknown) => void;
  }) {
    this.#settings = options.settings;
    this.#sender = new Sender(options.settings);
    this.#writer = options.writer;
    this.#claimLimit = options.claimLimit;
    this.#onRoom = options.onRoom;
    this.#onError = options.onError;
  }

  /** Queues each delivery at its destination and starts what each may send. */
  send(deliveries: readonly Queued[]): void {
    const touched = new Set<string>();
    for (const delivery of deliveries) {
      this.#destination(delivery.destination).waiting.push(delivery);
      touched.add(delivery.destination);
    }
    for (const url of touched) this.#pump(url, this.#destination(url));
  }

  /** A delivery that is not attempted (a refused address, no merchant): failed for good. */
  refuse(delivery: ClaimedDelivery, error: string): void {
    this.#writer.record(outcomeOf(delivery, { ok: false, error, refused: true }, this.#settings));
  }

  /** Destinations left out of the next claim: circuit not closed, or already holding a claim's worth. */
  excluded(): string[] {
    const names: string[] = [];
    for (const [url, destination] of this.#destinations) {
      const busy = destination.waiting.length + destination.inFlight >= this.#claimLimit;
      if (destination.breaker.state !== 'closed' || busy) names.push(url);
      else if (destination.inFlight === 0 && destination.waiting.length === 0 && destination.breaker.clear) {
        this.#destinations.delete(url); // idle, and no failure to remember
      }
    }
    return names;
  }

  /** The destinations whose open circuit may try one delivery now, each put to probing as it is handed out. */
  *startProbes(): Generator<string> {
    for (const [url, destination] of this.#destinations) {
      if (!destination.breaker.probeDue()) continue;
      destination.breaker.startProbe();
      yield url;
    }
  }

  /** A probing destination with nothing to probe with: closed, the next delivery is its probe. */
  nothingToProbe(url: string): void {
    this.#destinations.get(url)?.breaker.close();
  }

  /** Hands every waiting delivery back to the database, to be tried again from `at`. */
  releaseAll(at: Date): void {
    for (const destination of this.#destinations.values()) this.#release(destination, at);
  }

  get sending(): boolean {
    return [...this.#destinations.values()].some((destination) => destination.inFlight > 0);
  }

  dropIdlePools(): void {
    this.#sender.dropIdle();
  }

  close(): void {
    this.#sender.close();
  }

  #destination(url: string): Destination {
    let destination = this.#destinations.get(url);
    if (!destination) {
      destination = { waiting: [], inFlight: 0, breaker: new CircuitBreaker(this.#settings.breaker) };
      this.#destinations.set(url, destination);
    }
    return destination;
  }

  #release(destination: Destination, at: Date): void {
    for (const delivery of destination.waiting.splice(0))
      this.#writer.record({ id: delivery.id, release: at });
  }

  #pump(url: string, destination: Destination): void {
    const { breaker } = destination;
    const limit = breaker.state === 'closed' ? this.#settings.connectionsPerDestination : 1;
    while (destination.inFlight < limit && destination.waiting.length > 0 && breaker.state !== 'open') {
      const delivery = destination.waiting.shift() as Queued;
      destination.inFlight += 1;
      void this.#attempt(url, destination, delivery).catch(this.#onError);
    }
  }

  async #attempt(url: string, destination: Destination, delivery: Queued): Promise<void> {
    const id = `ipn_${delivery.id}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const result = await this.#sender.post(
      url,
      {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'Paywire-IPN/1',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(delivery.keys, id, timestamp, delivery.body),
      },
      delivery.body,
    );
    destination.inFlight -= 1;
    this.#writer.record(outcomeOf(delivery, result, this.#settings));
    if (!result.ok && result.refused) {
      // Not the receiver's failure: a refused probe proves nothing either way.
      if (destination.breaker.state === 'probing') destination.breaker.close();
    } else if (destination.breaker.record(result.ok)) {
      this.#release(destination, new Date(destination.breaker.reopenAt));
    }
    this.#pump(url, destination);
    if (destination.waiting.length + destination.inFlight === this.#claimLimit / 2) this.#onRoom();
  }
}
