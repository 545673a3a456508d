import { randomInt } from 'node:crypto';
import {
  type Book,
  type FakeModification,
  type FakePayment,
  type ModificationType,
  newPspReference,
} from './book.ts';
import { decide } from './cards.ts';
import type { NotificationItem, Notifier } from './notifications.ts';
import type { Operation } from './spec.ts';

/**
 * What each Checkout operation does once the request has passed authentication and validation:
 * the answer Adyen gives and the notification that follows it.
 */

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export function serviceError(status: number, errorCode: string, message: string, errorType: string): Answer {
  return { status, body: { status, errorCode, message, errorType } };
}

type Body = Record<string, unknown>;
type Amount = { currency: string; value: number };

const modificationTypes: Record<Exclude<Operation, 'payments'>, ModificationType> = {
  captures: 'capture',
  cancels: 'cancel',
  refunds: 'refund',
  reversals: 'reversal',
  'technical-cancel': 'technical-cancel',
};

const eventCodes: Record<ModificationType, string> = {
  capture: 'CAPTURE',
  cancel: 'CANCELLATION',
  refund: 'REFUND',
  reversal: 'CANCEL_OR_REFUND',
  'technical-cancel': 'TECHNICAL_CANCEL',
};

const digits = (length: number): string => Array.from({ length }, () => randomInt(10)).join('');

export class Checkout {
  private readonly book: Book;
  private readonly notifier: Notifier;

  constructor(book: Book, notifier: Notifier) {
    this.book = book;
    this.notifier = notifier;
  }

  handle(operation: Operation, body: Body, paymentPspReference: string): Answer {
    if (operation === 'payments') return this.pay(body);
    if (operation === 'technical-cancel') return this.technicalCancel(body);
    const payment = this.book.payments.get(paymentPspReference);
    // Adyen's answer to a modification naming no payment it knows.
    if (!payment)
      return serviceError(422, '167', 'Original pspReference required for this operation', 'validation');
    const modification = this.book.modify(payment, {
      type: modificationTypes[operation],
      amount: body.amount as Amount | undefined,
      reference: body.reference as string | undefined,
    });
    this.notifyModification(payment, modification);
    return {
      status: 201,
      body: {
        merchantAccount: body.merchantAccount,
        paymentPspReference: payment.pspReference,
        pspReference: modification.pspReference,
        ...(body.reference === undefined ? {} : { reference: body.reference }),
        ...(body.amount === undefined ? {} : { amount: body.amount }),
        ...(body.merchantRefundReason == null ? {} : { merchantRefundReason: body.merchantRefundReason }),
        status: 'received',
      },
    };
  }

  private pay(body: Body): Answer {
    const amount = body.amount as Amount;
    const outcome = decide(body, new Date());
    if (!('resultCode' in outcome))
      return serviceError(422, outcome.errorCode, outcome.message, 'validation');
    const payment = this.book.authorise({
      merchantReference: body.reference as string,
      merchantAccount: body.merchantAccount as string,
      amount,
      captureNow: body.captureDelayHours === 0,
      outcome,
    });
    const authorised = outcome.resultCode === 'Authorised';
    const additionalData: Record<string, string> = {
      ...(authorised ? { authCode: digits(6) } : {}),
      ...(outcome.cvcResult ? { cvcResult: outcome.cvcResult } : {}),
      ...(outcome.avsResult ? { avsResult: outcome.avsResult } : {}),
      ...(authorised ? { networkTxReference: digits(15) } : {}),
    };
    this.notify({
      pspReference: payment.pspReference,
      merchantAccountCode: payment.merchantAccount,
      merchantReference: payment.merchantReference,
      amount,
      eventCode: 'AUTHORISATION',
      success: authorised ? 'true' : 'false',
      ...(outcome.refusalReason ? { reason: outcome.refusalReason } : {}),
      paymentMethod: payment.paymentMethod,
      additionalData,
    });
    const method = body.paymentMethod as Body;
    return {
      status: 200,
      body: {
        additionalData,
        amount,
        merchantReference: payment.merchantReference,
        paymentMethod: { brand: outcome.brand, type: method.type ?? 'scheme' },
        pspReference: payment.pspReference,
        resultCode: outcome.resultCode,
        ...(outcome.refusalReason ? { refusalReason: outcome.refusalReason } : {}),
        ...(outcome.refusalReasonCode ? { refusalReasonCode: outcome.refusalReasonCode } : {}),
      },
    };
  }

  /**
   * Cancels the authorisation made with `paymentReference`, for when its answer was lost; the outcome comes
   * as a TECHNICAL_CANCEL notification. A captured payment cannot be cancelled this way: refused. A payment
   * that never reached Adyen leaves nothing to cancel: the fake confirms it, with no amount (Adyen's
   * reference does not say what it reports then; Paywire fails over only on a confirmation, so the
   * opposite reading costs availability, never a second charge).
   */
  private technicalCancel(body: Body): Answer {
    const paymentReference = body.paymentReference as string;
    const payment = this.book.byReference(paymentReference);
    let pspReference: string;
    if (payment) pspReference = this.modifyAndNotify(payment, body);
    else {
      pspReference = newPspReference();
      this.notify({
        pspReference,
        merchantAccountCode: body.merchantAccount as string,
        merchantReference: paymentReference,
        amount: { currency: 'EUR', value: 0 },
        eventCode: 'TECHNICAL_CANCEL',
        success: 'true',
      });
    }
    return {
      status: 201,
      body: {
        merchantAccount: body.merchantAccount,
        paymentReference,
        pspReference,
        ...(body.reference === undefined ? {} : { reference: body.reference }),
        status: 'received',
      },
    };
  }

  private modifyAndNotify(payment: FakePayment, body: Body): string {
    const modification = this.book.modify(payment, {
      type: 'technical-cancel',
      reference: body.reference as string | undefined,
    });
    this.notifyModification(payment, modification);
    return modification.pspReference;
  }

  private notifyModification(payment: FakePayment, modification: FakeModification): void {
    // CANCEL_OR_REFUND says which it was; TECHNICAL_CANCEL's additional data has no such field.
    const action = modification.type === 'reversal' ? modification.action : undefined;
    this.notify({
      pspReference: modification.pspReference,
      originalReference: payment.pspReference,
      merchantAccountCode: payment.merchantAccount,
      merchantReference: payment.merchantReference,
      amount: { currency: payment.currency, value: modification.amountMinor },
      eventCode: eventCodes[modification.type],
      success: modification.success ? 'true' : 'false',
      ...(modification.reason ? { reason: modification.reason } : {}),
      paymentMethod: payment.paymentMethod,
      ...(action ? { additionalData: { 'modification.action': action } } : {}),
    });
  }

  private notify(item: Omit<NotificationItem, 'eventDate'>): void {
    void this.notifier.send({ ...item, eventDate: new Date().toISOString() });
  }
}
