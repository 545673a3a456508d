import {
  amountInMinorUnits,
  DomainError,
  minorToAmount,
  type Refund as PublicRefund,
  type refundInput,
  type SepaStatus,
} from '@paywire/contracts';
import type { z } from 'zod';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { transactionNotFound } from '../errors.ts';
import { recordEvent } from '../ipn/events.ts';
import { presentVendorRefunds, recordVendorRefunds, takeVendorRefunds } from '../marketplace/refunds.ts';
import { type RefundFollowUp, refundAnswer, refundColumns } from '../payments/refund-answer.ts';
import { recordPaymentChange } from '../security/audit/trail.ts';
import { loadDebit } from './debits.ts';
import { SepaRefund } from './entities.ts';
import { eventDebit, sepaEventParameters } from './events.ts';

type RefundRequest = z.output<typeof refundInput>;

const notRefundable: Record<Exclude<SepaStatus, 'SUCCESS'>, string> = {
  PENDING: 'the debit is still PENDING: only a collected (SUCCESS) debit can be refunded',
  FAIL: 'the debit failed: nothing was collected to refund',
  REFUNDED: 'the debit is already refunded in full',
};

/**
 * A merchant's refund of a collected debit, whole or in parts, never beyond what was collected, divided
 * between the merchant and the vendors of a split debit as a card refund is. The debit is locked, so refunds
 * of it and its settlement run one at a time.
 */
export async function refundSepaDebit(
  ctx: MerchantContext,
  input: RefundRequest,
  followUp?: RefundFollowUp,
): Promise<PublicRefund> {
  return inTransaction(ctx.em, async (em) => {
    const debit = await loadDebit(em, ctx.merchantId, input, true);
    if (!debit) throw transactionNotFound(input);
    const { currency } = debit;
    if (debit.status !== 'SUCCESS') {
      throw new DomainError('REFUND_AMOUNT_EXCEEDS_BALANCE', notRefundable[debit.status], {
        name: 'transactionId',
        messageValue: String(debit.id),
      });
    }
    const balance = debit.amountMinor - debit.refundedMinor;
    const amountMinor = input.amount === undefined ? balance : amountInMinorUnits(input.amount, currency);
    if (amountMinor > balance) {
      throw new DomainError(
        'REFUND_AMOUNT_EXCEEDS_BALANCE',
        `the refundable balance is ${minorToAmount(balance, currency)} ${currency}`,
        { name: 'amount', ...(input.amount ? { messageValue: input.amount } : {}) },
      );
    }
    const vendorParts = await takeVendorRefunds(
      em,
      ctx.merchantId,
      { id: debit.id, currency, capturedMinor: debit.amountMinor },
      { amountMinor, balanceMinor: balance },
      input,
    );
    const now = await callNow(ctx, em);
    debit.refundedMinor += amountMinor;
    if (debit.refundedMinor === debit.amountMinor) {
      debit.status = 'REFUNDED';
      debit.nextActionAt = null; // nothing left for the bank to return
      debit.returnCode = null; // nor a return to show
    }
    const refund = em.create(SepaRefund, {
      merchantId: ctx.merchantId,
      debit,
      amountMinor,
      ...refundColumns(input, currency),
      returned: false,
    });
    await em.flush();
    if (vendorParts) await recordVendorRefunds(em, refund.id, vendorParts);
    await recordEvent(
      ctx,
      em,
      'Refund',
      sepaEventParameters(eventDebit(debit), debit.mandate, amountMinor, now),
    );
    await followUp?.(em, debit.id);
    await recordPaymentChange(ctx, em, 'refund', debit.id);
    const answer = {
      ...refundAnswer(refund, debit.id, currency, now),
      ...(vendorParts ? presentVendorRefunds(vendorParts, currency) : {}),
    };
    await ctx.keyed?.record(em, answer); // a keyed refund's answer commits with it (idempotency, phased)
    return answer;
  });
}
