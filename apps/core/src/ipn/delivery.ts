import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { CoreServices } from '../context.ts';
import { ipnDeliveries, ipnDeliveryLag } from '../metrics.ts';
import { type BreakerSettings, CircuitBreaker } from './breaker.ts';
import {
  type ClaimedDelivery,
  claimDeliveries,
  claimDestination,
  type Outcome,
  renewLeases,
  writeOutcomes,
} from './delivery-leases.ts';
import { signingSecrets } from './secret.ts';
import { type Attempt, Sender, type SenderSettings } from './sender.ts';
import { refusedAddress } from './targets.ts';

export interface DeliverySettings extends SenderSettings {
  /** First retry delay; each retry doubles it (plus up to 10% jitter), up to a day. */
  retryDelaySeconds: number;
  breaker: BreakerSettings;
}

/** How the workers fetch: rows per claim, rows held at most, idle polling, and the lease on held rows. */
const claimLimit = 500;
const heldLimit = 4000;
const pollMs = 100;
const leaseMs = 8_000;
const renewEveryMs = 2_000;

/** Standard Webhooks: the HMAC key is the base64 part of the whsec_ secret (made once per merchant and batch). */
const signingKey = (secret: string): KeyObject =>
  createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));

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

interface Queued extends ClaimedDelivery {
  keys: KeyObject[];
}

/** A destination as this core sees it: its deliveries waiting for a connection, those in flight, its circuit. */
interface Destination {
  waiting: Queued[];
  inFlight: number;
  breaker: CircuitBreaker;
}

export interface DeliveryWorkers {
  /** Stops claiming, hands back what was not sent, waits (boundedly) for what is in flight. */
  stop(): Promise<void>;
}

/**
 * The delivery workers of one core: a loop claims due rows in batches, reads their merchants' secrets once
 * per batch, and hands each row to its destination, which sends at most `connectionsPerDestination` at a
 * time over its own keep-alive pool. Outcomes are written in batches by one writer, which also renews the
 * lease on every row still held. A destination whose circuit is open, or which already holds a claim's
 * worth of rows, is left out of claims: its rows wait in the database, not in a worker.
 *
 * Circuit state is per core, in memory: it is learnt from this core's own attempts within seconds, costs
 * no write on the delivery path, and a second core only pays the same few failed attempts to learn it.
 */
export function startDeliveryWorkers(
  services: Pick<CoreServices, 'orm' | 'ipn' | 'vault'>,
  onError: (error: unknown) => void,
): DeliveryWorkers {
  const settings = services.ipn;
  const em = () => services.orm.em.fork();
  const sender = new Sender(settings);
  const destinations = new Map<string, Destination>();
  /** Rows claimed by this core and not yet written back: their leases are renewed. */
  const held = new Set<number>();
  let outcomes: Outcome[] = [];
  let writing: Promise<void> = Promise.resolve();
  let writeScheduled = false;
  let running = true;
  let wake: (() => void) | undefined;

  const destinationOf = (url: string): Destination => {
    let destination = destinations.get(url);
    if (!destination) {
      destination = { waiting: [], inFlight: 0, breaker: new CircuitBreaker(settings.breaker) };
      destinations.set(url, destination);
    }
    return destination;
  };

  /** Writes serialise (outcomes, renewals), so a renewal never overwrites a newer outcome's next try. */
  const serially = (write: () => Promise<void>) => {
    writing = writing.then(write).catch(onError);
    return writing;
  };

  const record = (outcome: Outcome) => {
    held.delete(outcome.id);
    outcomes.push(outcome);
    if (writeScheduled) return;
    writeScheduled = true;
    void serially(async () => {
      writeScheduled = false;
      const batch = outcomes;
      outcomes = [];
      await writeOutcomes(em(), batch);
    });
  };

  const release = (destination: Destination, at: Date) => {
    for (const delivery of destination.waiting.splice(0)) record({ id: delivery.id, release: at });
  };

  const attempt = async (url: string, destination: Destination, delivery: Queued) => {
    const id = `ipn_${delivery.id}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const result = await sender.post(
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
    record(outcomeOf(delivery, result, settings));
    if (!result.ok && result.refused) {
      // Not the receiver's failure: a refused probe proves nothing either way.
      if (destination.breaker.state === 'probing') destination.breaker.close();
    } else if (destination.breaker.record(result.ok)) {
      release(destination, new Date(destination.breaker.reopenAt));
    }
    pump(url, destination);
    if (destination.waiting.length + destination.inFlight === claimLimit / 2) wake?.();
  };

  function pump(url: string, destination: Destination) {
    const { breaker } = destination;
    const limit = breaker.state === 'closed' ? settings.connectionsPerDestination : 1;
    while (destination.inFlight < limit && destination.waiting.length > 0 && breaker.state !== 'open') {
      const delivery = destination.waiting.shift() as Queued;
      destination.inFlight += 1;
      void attempt(url, destination, delivery).catch(onError);
    }
  }

  /** A claimed batch: secrets read once, refused targets failed at once, the rest queued per destination. */
  const dispatch = async (claimed: ClaimedDelivery[]) => {
    for (const delivery of claimed) held.add(delivery.id);
    const keys = new Map<number, KeyObject[]>();
    try {
      const merchants = [...new Set(claimed.map((delivery) => delivery.merchantId))];
      for (const [merchantId, secrets] of await signingSecrets(em(), services.vault, merchants))
        keys.set(merchantId, secrets.map(signingKey));
    } catch (error) {
      for (const delivery of claimed) record({ id: delivery.id, release: new Date() });
      throw error;
    }
    const touched = new Set<string>();
    for (const delivery of claimed) {
      const refused = refusedAddress(delivery.destination, settings.allowPrivateTargets);
      const signing = keys.get(delivery.merchantId);
      if (refused || !signing) {
        record(
          outcomeOf(delivery, { ok: false, error: refused ?? 'merchant not found', refused: true }, settings),
        );
        continue;
      }
      destinationOf(delivery.destination).waiting.push({ ...delivery, keys: signing });
      touched.add(delivery.destination);
    }
    for (const url of touched) pump(url, destinationOf(url));
  };

  /** Destinations left out of the next claim: circuit not closed, or already holding plenty. */
  const excluded = () => {
    const names: string[] = [];
    for (const [url, destination] of destinations) {
      const busy = destination.waiting.length + destination.inFlight >= claimLimit;
      if (destination.breaker.state !== 'closed' || busy) names.push(url);
      else if (destination.inFlight === 0 && destination.waiting.length === 0 && destination.breaker.clear) {
        destinations.delete(url); // idle, and no failure to remember
      }
    }
    return names;
  };

  const probe = async () => {
    for (const [url, destination] of destinations) {
      if (!destination.breaker.probeDue()) continue;
      destination.breaker.startProbe();
      const claimed = await claimDestination(em(), 1, leaseMs, url);
      if (claimed.length === 0)
        destination.breaker.close(); // nothing to probe with: the next delivery is
      else await dispatch(claimed);
    }
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });

  const loop = (async () => {
    let failures = 0;
    while (running) {
      try {
        await probe();
        const wanted = Math.min(claimLimit, heldLimit - held.size);
        const claimed = wanted > 0 ? await claimDeliveries(em(), wanted, leaseMs, excluded()) : [];
        if (claimed.length > 0) await dispatch(claimed);
        failures = 0;
        if (claimed.length === wanted && wanted > 0) continue; // more may be due
      } catch (error) {
        onError(error);
        failures += 1;
      }
      await sleep(pollMs * 2 ** Math.min(5, failures));
    }
  })();

  const renewal = setInterval(() => {
    sender.dropIdle();
    void serially(() => renewLeases(em(), [...held], leaseMs));
  }, renewEveryMs);

  return {
    async stop() {
      running = false;
      wake?.();
      await loop;
      clearInterval(renewal);
      const now = new Date();
      for (const destination of destinations.values()) release(destination, now);
      const deadline = Date.now() + 5_000;
      while (
        [...destinations.values()].some((destination) => destination.inFlight > 0) &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await serially(async () => {});
      await writing;
      sender.close();
    },
  };
}

declare module '../context.ts' {
  interface CoreServices {
    ipn: DeliverySettings;
  }
}
