import { randomInt } from 'node:crypto';
import type { Outcome } from './cards.ts';

/**
 * The fake's ledger: one entry per payment, keyed by pspReference, moved as Adyen moves a payment.
 * Modifications are always "received"; whether they took effect is decided here and reported by the
 * notification, as Adyen does (a capture above the authorised amount is accepted, then fails).
 */

export type ModificationType = 'capture' | 'cancel' | 'refund' | 'reversal' | 'technical-cancel';

export interface FakeModification {
  pspReference: string;
  type: ModificationType;
  amountMinor: number;
  reference?: string;
  status: 'received';
  /** For a reversal: whether it cancelled the authorisation or refunded the capture. */
  action?: 'cancel' | 'refund';
  /** The outcome its notification reports. */
  success: boolean;
  reason?: string;
}

export interface FakePayment {
  pspReference: string;
  merchantReference: string;
  merchantAccount: string;
  currency: string;
  /** The brand Adyen reports as the notification's `paymentMethod` (visa, mc, amex). */
  paymentMethod: string;
  authorisedMinor: number;
  capturedMinor: number;
  refundedMinor: number;
  cancelled: boolean;
  resultCode: Outcome['resultCode'];
  refusalReason?: string;
  modifications: FakeModification[];
  technicallyCancelled?: boolean;
}

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A 16-character reference shaped like Adyen's. */
export function newPspReference(): string {
  let reference = '';
  for (let i = 0; i < 16; i++) reference += alphabet[randomInt(alphabet.length)];
  return reference;
}

export interface Authorisation {
  merchantReference: string;
  merchantAccount: string;
  amount: { currency: string; value: number };
  /** `captureDelayHours: 0`: Adyen captures together with the authorisation. */
  captureNow: boolean;
  outcome: Outcome;
}

export interface ModificationRequest {
  type: ModificationType;
  amount?: { currency: string; value: number };
  reference?: string;
}

export class Book {
  readonly payments = new Map<string, FakePayment>();

  authorise(request: Authorisation): FakePayment {
    const authorised = request.outcome.resultCode === 'Authorised';
    const payment: FakePayment = {
      pspReference: newPspReference(),
      merchantReference: request.merchantReference,
      merchantAccount: request.merchantAccount,
      currency: request.amount.currency,
      paymentMethod: request.outcome.brand,
      authorisedMinor: authorised ? request.amount.value : 0,
      capturedMinor: authorised && request.captureNow ? request.amount.value : 0,
      refundedMinor: 0,
      cancelled: false,
      resultCode: request.outcome.resultCode,
      modifications: [],
      ...(request.outcome.refusalReason ? { refusalReason: request.outcome.refusalReason } : {}),
    };
    this.payments.set(payment.pspReference, payment);
    return payment;
  }

  /** The latest payment with this merchant reference (what a technical cancel names). */
  byReference(merchantReference: string): FakePayment | undefined {
    return [...this.payments.values()].findLast((p) => p.merchantReference === merchantReference);
  }

  /** Records a modification and, when the payment allows it, applies it. */
  modify(payment: FakePayment, request: ModificationRequest): FakeModification {
    const { type } = request;
    const remainingCapture = payment.capturedMinor - payment.refundedMinor;
    // A reversal refunds what was captured, or else cancels the authorisation. A technical cancel only
    // cancels: Adyen's /cancels "cancels the authorisation on a payment that has not yet been captured".
    const reversesByRefund = type === 'reversal' && payment.capturedMinor > 0;
    const amountMinor =
      request.amount?.value ?? (reversesByRefund ? remainingCapture : payment.authorisedMinor);
    const reason = this.refusal(payment, type, amountMinor, request.amount?.currency, reversesByRefund);
    const modification: FakeModification = {
      pspReference: newPspReference(),
      type,
      amountMinor,
      status: 'received',
      success: reason === undefined,
      ...(request.reference === undefined ? {} : { reference: request.reference }),
      ...(type === 'reversal'
        ? { action: reversesByRefund ? ('refund' as const) : ('cancel' as const) }
        : {}),
      ...(reason === undefined ? {} : { reason }),
    };
    payment.modifications.push(modification);
    if (reason !== undefined) return modification;
    if (type === 'capture') payment.capturedMinor += amountMinor;
    else if (type === 'refund' || reversesByRefund) payment.refundedMinor += amountMinor;
    else payment.cancelled = true;
    if (type === 'technical-cancel') payment.technicallyCancelled = true;
    return modification;
  }

  /** Why Adyen would fail this modification, or undefined when it succeeds. */
  private refusal(
    payment: FakePayment,
    type: ModificationType,
    amountMinor: number,
    currency: string | undefined,
    reversesByRefund: boolean,
  ): string | undefined {
    if (payment.resultCode !== 'Authorised') return 'Original payment was not authorised';
    if (payment.cancelled) return 'Payment has been cancelled';
    if (currency !== undefined && currency !== payment.currency) return 'Currency mismatch';
    const remainingCapture = payment.capturedMinor - payment.refundedMinor;
    switch (type) {
      case 'capture':
        return payment.capturedMinor + amountMinor > payment.authorisedMinor
          ? 'Insufficient balance on payment'
          : undefined;
      case 'cancel':
      case 'technical-cancel':
        return payment.capturedMinor > 0 ? 'Payment has been captured' : undefined;
      case 'refund':
        return amountMinor > remainingCapture ? 'Insufficient balance on payment' : undefined;
      default:
        return reversesByRefund && remainingCapture === 0 ? 'Payment has been fully refunded' : undefined;
    }
  }
}
