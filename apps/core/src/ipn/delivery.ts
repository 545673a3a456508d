import { createSecretKey, type KeyObject } from 'node:crypto';
import type { CoreServices } from '../context.ts';
import { type ClaimedDelivery, claimDeliveries, claimDestination } from './delivery-leases.ts';
import { DeliveryWriter } from './delivery-writer.ts';
import { type DeliverySettings, Destinations, type Queued } from './destinations.ts';
import { signingSecrets } from './secret.ts';
import { refusedAddress } from './targets.ts';

/** How the workers fetch: rows per claim, rows held at most, idle polling, and the lease on held rows. */
const claimLimit = 500;
const heldLimit = 4000;
const pollMs = 100;
const leaseMs = 8_000;
const renewEveryMs = 2_000;

/** Standard Webhooks: the HMAC key is the base64 part of the whsec_ secret (made once per merchant and batch). */
const signingKey = (secret: string): KeyObject =>
  createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));

export interface DeliveryWorkers {
  /** Stops claiming, hands back what was not sent, waits (boundedly) for what is in flight. */
  stop(): Promise<void>;
}

/**
 * The delivery workers of one core: a loop claims due rows in batches, reads their merchants' secrets once
 * per batch, and hands each row to its destination (destinations.ts), which sends at most
 * `connectionsPerDestination` at a time over its own keep-alive pool. Outcomes are written in batches by one
 * writer (delivery-writer.ts), which also renews the lease on every row still held. A destination whose
 * circuit is open, or which already holds a claim's worth of rows, is left out of claims: its rows wait in
 * the database, not in a worker.
 */
export function startDeliveryWorkers(
  services: Pick<CoreServices, 'orm' | 'ipn' | 'vault'>,
  onError: (error: unknown) => void,
): DeliveryWorkers {
  const settings = services.ipn;
  const em = () => services.orm.em.fork();
  const writer = new DeliveryWriter(em, onError);
  let wake: (() => void) | undefined;
  const destinations = new Destinations({ settings, writer, claimLimit, onRoom: () => wake?.(), onError });

  /** A claimed batch: secrets read once, refused targets failed at once, the rest sent per destination. */
  const dispatch = async (claimed: ClaimedDelivery[]) => {
    writer.hold(claimed.map((delivery) => delivery.id));
    const keys = new Map<number, KeyObject[]>();
    try {
      const merchants = [...new Set(claimed.map((delivery) => delivery.merchantId))];
      for (const [merchantId, secrets] of await signingSecrets(em(), services.vault, merchants))
        keys.set(merchantId, secrets.map(signingKey));
    } catch (error) {
      for (const delivery of claimed) writer.record({ id: delivery.id, release: new Date() });
      throw error;
    }
    const queued: Queued[] = [];
    for (const delivery of claimed) {
      const refused = refusedAddress(delivery.destination, settings.allowPrivateTargets);
      const signing = keys.get(delivery.merchantId);
      if (refused || !signing) destinations.refuse(delivery, refused ?? 'merchant not found');
      else queued.push({ ...delivery, keys: signing });
    }
    destinations.send(queued);
  };

  /** One delivery for each destination whose circuit may try again. */
  const probe = async () => {
    for (const url of destinations.startProbes()) {
      const claimed = await claimDestination(em(), 1, leaseMs, url);
      if (claimed.length === 0) destinations.nothingToProbe(url);
      else await dispatch(claimed);
    }
  };

  let running = true;
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
        const wanted = Math.min(claimLimit, heldLimit - writer.held);
        const claimed =
          wanted > 0 ? await claimDeliveries(em(), wanted, leaseMs, destinations.excluded()) : [];
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
    destinations.dropIdlePools();
    void writer.renewLeases(leaseMs);
  }, renewEveryMs);

  return {
    async stop() {
      running = false;
      wake?.();
      await loop;
      clearInterval(renewal);
      destinations.releaseAll(new Date());
      const deadline = Date.now() + 5_000;
      while (destinations.sending && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await writer.flush();
      destinations.close();
    },
  };
}

declare module '../context.ts' {
  interface CoreServices {
    ipn: DeliverySettings;
  }
}
