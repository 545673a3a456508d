import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Spec } from './spec.ts';

/**
 * Adyen's standard notifications: one item per POST, HTTP Basic, signed with the merchant's HMAC key
 * as `@adyen/api-library`'s HmacValidator checks it, delivered after the fake's latency and retried
 * (a bounded number of times) until the receiver answers `[accepted]`.
 */

export interface NotificationItem {
  pspReference: string;
  originalReference?: string;
  merchantAccountCode: string;
  merchantReference: string;
  amount: { currency: string; value: number };
  eventCode: string;
  eventDate: string;
  success: 'true' | 'false';
  reason?: string;
  paymentMethod?: string;
  additionalData?: Record<string, string>;
}

/** What a test passes to `sendNotification`: the account and the date default to the fake's. */
export type NotificationInput = Omit<NotificationItem, 'merchantAccountCode' | 'eventDate'> &
  Partial<Pick<NotificationItem, 'merchantAccountCode' | 'eventDate'>>;

export interface Delivery {
  item: NotificationItem;
  /** The receiver's last answer; status 0 when it never answered. */
  status: number;
  body: string;
  accepted: boolean;
}

/** HmacValidator's signed string: these eight fields joined by ':', a missing one as ''. */
export function signedData(item: NotificationItem): string {
  return [
    item.pspReference,
    item.originalReference ?? '',
    item.merchantAccountCode,
    item.merchantReference,
    item.amount.value,
    item.amount.currency,
    item.eventCode,
    item.success,
  ].join(':');
}

export function sign(item: NotificationItem, keyHex: string): string {
  return createHmac('sha256', Buffer.from(keyHex, 'hex')).update(signedData(item), 'utf8').digest('base64');
}

export interface NotifierOptions {
  notify?: { url: string; username: string; password: string };
  hmacKeyHex: string;
  spec: Spec;
  latencyMs: () => number;
}

const attempts = 4;
// Adyen retries a failed delivery after minutes; the fake after milliseconds, so tests see retries at all.
const retryDelayMs = 100;
// Adyen waits 10 s for the acknowledgement before counting a delivery failed, as the fake does: a shorter
// wait would have it resend to a receiver that is only busy, and charge that receiver for the same item twice.
const attemptTimeoutMs = 10_000;

export class Notifier {
  /** Every item the fake sent or tried to send, in order. */
  readonly sent: Delivery[] = [];
  private readonly inFlight = new Set<Promise<Delivery>>();
  private readonly stop = new AbortController();
  private readonly options: NotifierOptions;

  constructor(options: NotifierOptions) {
    this.options = options;
  }

  /**
   * Signs, validates and delivers one item. The fake's own notifications go through here too, so a
   * notification the Webhooks document refuses throws here instead of reaching the receiver.
   */
  send(
    item: NotificationItem,
    signature = sign(item, this.options.hmacKeyHex),
    tries = attempts,
  ): Promise<Delivery> {
    const signed = { ...item, additionalData: { ...item.additionalData, hmacSignature: signature } };
    const body = { live: 'false', notificationItems: [{ NotificationRequestItem: signed }] };
    const violation = this.options.spec.notification(body);
    if (violation) throw new Error(`fake Adyen built an invalid notification: ${violation.text}`);
    const delivery = this.deliver(signed, JSON.stringify(body), tries);
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
    return delivery;
  }

  /** Resolves when every notification sent so far has been accepted or has used up its attempts. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Where notifications go from now on (a receiver known only once its account exists). */
  notifyTo(target: NonNullable<NotifierOptions['notify']>): void {
    this.options.notify = target;
  }

  /** Abandons deliveries still waiting, so closing the fake does not wait out their retries. */
  async close(): Promise<void> {
    this.stop.abort();
    await this.settled();
  }

  private async deliver(item: NotificationItem, body: string, tries: number): Promise<Delivery> {
    const delivery: Delivery = { item, status: 0, body: '', accepted: false };
    this.sent.push(delivery);
    const target = this.options.notify;
    if (!target) return delivery;
    const authorization = `Basic ${Buffer.from(`${target.username}:${target.password}`).toString('base64')}`;
    const signal = this.stop.signal;
    try {
      await sleep(this.options.latencyMs(), undefined, { signal });
      for (let attempt = 1; attempt <= tries; attempt++) {
        if (attempt > 1) await sleep(retryDelayMs * 2 ** (attempt - 2), undefined, { signal });
        try {
          const answer = await fetch(target.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization },
            body,
            signal: AbortSignal.any([signal, AbortSignal.timeout(attemptTimeoutMs)]),
          });
          delivery.status = answer.status;
          delivery.body = await answer.text();
          delivery.accepted = answer.ok && delivery.body.trim() === '[accepted]';
          if (delivery.accepted) break;
        } catch (error) {
          if (signal.aborted) throw error;
          delivery.status = 0; // refused or timed out: try again
        }
      }
    } catch {
      // Aborted by close(): the delivery stays as far as it got.
    }
    return delivery;
  }
}
