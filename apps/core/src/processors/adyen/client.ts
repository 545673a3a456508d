import type { Inquiry, ModificationOutcome, Processor } from '../processor.ts';
import { ProcessorUnavailable } from '../processor.ts';
import type { ModificationResponse, PaymentResponse } from './checkout.ts';
import { awaitCancelConfirmation, type CancelConfirmation } from './confirmations.ts';
import { failedAnswer, noAnswer } from './errors.ts';
import type { NotificationRequestItem } from './hmac.ts';
import {
  captureRequest,
  paymentRequest,
  refundRequest,
  reversalRequest,
  technicalCancelReference,
  technicalCancelRequest,
} from './requests.ts';
import { authorizationOutcome, notifiedAuthorisation } from './results.ts';

export interface AdyenOptions {
  /** Checkout API v72's base URL, adyenEndpoint's. */
  endpoint: string;
  apiKey: string;
  merchantAccount: string;
  /** Deadline of each request, answer included. */
  timeoutMs: number;
  fetch?: typeof fetch;
  /** Adyen's confirmation of a technical cancel so far (the notification inbox), by attempt reference. */
  technicalCancelConfirmation: (reference: string) => Promise<CancelConfirmation>;
  /** How long a technical cancel waits for that confirmation before its outcome counts as unknown. */
  confirmationWaitMs: number;
  /** Adyen's AUTHORISATION notification of an attempt, if it has come (the notification inbox), by reference. */
  authorisationNotice: (reference: string) => Promise<NotificationRequestItem | undefined>;
  /**
   * /payments requires a returnUrl, which Adyen only follows for redirect payment methods; Paywire refuses every
   * redirect (results.ts), so the default is a reserved name that cannot resolve.
   */
  returnUrl?: string;
}

/** Adyen's Checkout v72 base URL: the live one carries the company account's prefix from the Customer Area. */
export function adyenEndpoint(environment: 'test' | 'live', liveUrlPrefix?: string): string {
  if (environment === 'test') return 'https://checkout-test.adyen.com/v72';
  if (!liveUrlPrefix) throw new Error('adyen: the live endpoint needs the account’s live URL prefix');
  return `https://${liveUrlPrefix}-checkout-live.adyenpayments.com/checkout/v72`;
}

/**
 * The Adyen connector: Checkout API v72 over fetch. Every request carries the reference of the Paywire attempt it
 * belongs to as its Idempotency-Key, so a repeat after an unknown outcome is answered, not performed, again.
 */
export function createAdyenProcessor(options: AdyenOptions): Processor {
  const send = options.fetch ?? fetch;
  const account = {
    merchantAccount: options.merchantAccount,
    returnUrl: options.returnUrl ?? 'https://paywire.invalid/adyen/return',
  };

  async function post(path: string, body: object, idempotencyKey: string): Promise<object> {
    let status: number;
    let text: string;
    try {
      const response = await send(`${options.endpoint}${path}`, {
        method: 'POST',
        headers: {
          'X-API-Key': options.apiKey,
          'Content-Type': 'application/json',
          'Idempotency-Key': idempotencyKey,
        },
        body: JSON.stringify(body),
        // A redirect would carry the API key to wherever it points.
        redirect: 'error',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      throw noAnswer(path, error, options.timeoutMs);
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = undefined;
    }
    if (status < 200 || status > 299) throw failedAnswer(path, status, answer);
    if (typeof answer !== 'object' || answer === null)
      throw new ProcessorUnavailable(`adyen: ${path} answered ${status} without a JSON object`, true);
    return answer;
  }

  async function modification(
    path: string,
    body: object,
    idempotencyKey: string,
  ): Promise<ModificationOutcome> {
    const answer = (await post(path, body, idempotencyKey)) as Partial<ModificationResponse>;
    if (answer.status !== 'received')
      throw new ProcessorUnavailable(`adyen: ${path} answered status ${String(answer.status)}`, true);
    return {
      status: 'received',
      ...(answer.pspReference ? { processorReference: answer.pspReference } : {}),
    };
  }

  const payment = (pspReference: string, action: string) =>
    `/payments/${encodeURIComponent(pspReference)}/${action}`;

  return {
    connector: 'adyen',
    async authorize(request) {
      const answer = await post('/payments', paymentRequest(request, account), request.reference);
      return authorizationOutcome(answer as PaymentResponse, request);
    },
    capture: (request) =>
      modification(
        payment(request.processorReference, 'captures'),
        captureRequest(request, account.merchantAccount),
        request.reference,
      ),
    // A reversal, not /cancels: it voids a sale Adyen captured with its authorisation too (a refund of the
    // whole, CANCEL_OR_REFUND), which a cancel cannot.
    cancel: (request) =>
      modification(
        payment(request.processorReference, 'reversals'),
        reversalRequest(request, account.merchantAccount),
        request.reference,
      ),
    refund: (request) =>
      modification(
        payment(request.processorReference, 'refunds'),
        refundRequest(request, account.merchantAccount),
        request.reference,
      ),
    // Checkout v72 has no lookup by merchant reference (outcomes arrive as notifications), so an unknown
    // outcome stays unknown here and the pipeline technical-cancels the attempt instead.
    inquire: async (): Promise<Inquiry> => 'unknown',
    async notifiedOutcome(reference): Promise<Inquiry> {
      const item = await options.authorisationNotice(reference);
      return item ? notifiedAuthorisation(item) : 'unknown';
    },
    // Adyen only receives the cancel here; it is done once its TECHNICAL_CANCEL notification says so. Until
    // then (or if Adyen refuses it: a payment already captured) whatever the attempt did may stand, so the
    // outcome stays unknown and no failover may follow.
    async technicalCancel(reference) {
      const received = await modification(
        '/cancels',
        technicalCancelRequest(reference, account.merchantAccount),
        technicalCancelReference(reference),
      );
      const confirmation = await awaitCancelConfirmation(
        () => options.technicalCancelConfirmation(reference),
        options.confirmationWaitMs,
      );
      if (confirmation === 'confirmed') return { ...received, status: 'done' };
      throw new ProcessorUnavailable(
        confirmation === 'refused'
          ? `adyen: the technical cancel of ${reference} was refused; the payment may stand`
          : `adyen: the technical cancel of ${reference} was not confirmed within ${options.confirmationWaitMs} ms`,
        true,
      );
    },
  };
}
