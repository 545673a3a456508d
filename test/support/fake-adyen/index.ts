import { randomBytes } from 'node:crypto';
import { Book, type FakePayment } from './book.ts';
import { Checkout } from './checkout.ts';
import { type Delivery, type NotificationInput, Notifier, sign } from './notifications.ts';
import { FakeServer, type Fault, type RecordedRequest } from './server.ts';
import { adyenSpec } from './spec.ts';

/**
 * A stateful fake of Adyen's Checkout API v72 for tests: validated against Adyen's own OpenAPI
 * documents, keeping payments as Adyen does and sending signed standard notifications.
 */

export type { FakeModification, FakePayment } from './book.ts';
export type { Delivery, NotificationInput, NotificationItem } from './notifications.ts';
export { sign, signedData } from './notifications.ts';
export type { Fault, RecordedRequest } from './server.ts';

export interface FakeAdyenOptions {
  apiKey: string;
  merchantAccount: string;
  latencyMs?: number;
  /** The HMAC key notifications are signed with; a random one when absent (see `FakeAdyen.hmacKeyHex`). */
  hmacKeyHex?: string;
  /** Where to POST notifications (HTTP Basic); none are delivered without it. */
  notify?: { url: string; username: string; password: string };
}

export interface FakeAdyen {
  /** The base URL, e.g. http://127.0.0.1:PORT/v72; operation paths are relative to it. */
  url: string;
  hmacKeyHex: string;
  /** Payments by pspReference. */
  book: ReadonlyMap<string, FakePayment>;
  byReference(merchantReference: string): FakePayment | undefined;
  /** Every request and answer that failed validation against the document, and any failure of the fake. */
  violations: string[];
  requests: RecordedRequest[];
  /** Every notification sent (or being sent), with the receiver's last answer. */
  notifications: Delivery[];
  /** Where notifications go from now on: Paywire's endpoint needs the account's id, known after the fake starts. */
  notifyTo(target: { url: string; username: string; password: string }): void;
  /** Applies to the next matching request(s). */
  fault(next: Fault): void;
  setLatency(ms: number): void;
  /** Sends a correctly signed item of any event (a CHARGEBACK, say); resolves with its delivery. */
  sendNotification(item: NotificationInput): Promise<Delivery>;
  /** Sends an item with a wrong signature, once. */
  sendForged(item: NotificationInput): Promise<Delivery>;
  /** Resolves when every notification so far has been accepted or has used up its retries. */
  notificationsSettled(): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeAdyen(options: FakeAdyenOptions): Promise<FakeAdyen> {
  const spec = adyenSpec();
  const hmacKeyHex = options.hmacKeyHex ?? randomBytes(32).toString('hex');
  const book = new Book();
  // One latency for answers and notifications alike, read when each is sent so setLatency applies.
  let latencyMs = options.latencyMs ?? 0;
  const latency = () => latencyMs;
  const notifier = new Notifier({
    hmacKeyHex,
    spec,
    latencyMs: latency,
    ...(options.notify ? { notify: options.notify } : {}),
  });
  const server = new FakeServer({
    apiKey: options.apiKey,
    merchantAccount: options.merchantAccount,
    latencyMs: latency,
    spec,
    checkout: new Checkout(book, notifier),
  });
  const complete = (item: NotificationInput) => ({
    merchantAccountCode: options.merchantAccount,
    eventDate: new Date().toISOString(),
    ...item,
  });
  return {
    url: await server.listen(),
    hmacKeyHex,
    book: book.payments,
    byReference: (merchantReference) => book.byReference(merchantReference),
    violations: server.violations,
    requests: server.requests,
    notifications: notifier.sent,
    notifyTo: (target) => notifier.notifyTo(target),
    fault: (next) => server.fault(next),
    setLatency: (ms) => {
      latencyMs = ms;
    },
    sendNotification: async (item) => notifier.send(complete(item)),
    // Signed with a different key: right shape, wrong signature, as a forger without the key would send.
    sendForged: async (item) => {
      const forged = complete(item);
      return notifier.send(forged, sign(forged, randomBytes(32).toString('hex')), 1);
    },
    notificationsSettled: () => notifier.settled(),
    close: async () => {
      await notifier.close();
      await server.close();
    },
  };
}
