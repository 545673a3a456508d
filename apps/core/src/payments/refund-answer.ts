import type { EntityManager } from '@mikro-orm/postgresql';
import {
  amountInMinorUnits,
  minorToAmount,
  type Refund as PublicRefund,
  type refundInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import { monthDayYear } from '../clock/calendar.ts';

type RefundRequest = z.output<typeof refundInput>;

/** What commits with a refund besides it (a refunded charge's subscription is canceled): the payment's id. */
export type RefundFollowUp = (em: EntityManager, paymentId: number) => Promise<void>;

/** What a refund row keeps of the request besides its amount, for card and SEPA refunds alike. */
export function refundColumns(input: RefundRequest, currency: string) {
  return {
    taxAmountMinor:
      input.taxAmount === undefined ? null : amountInMinorUnits(input.taxAmount, currency, 'taxAmount'),
    reason: input.reason ?? null,
    cancelSubscriptions: input.cancelSubscriptions ?? null,
    transactionMetaData: input.transactionMetaData ?? null,
  };
}

/**
 * The original's refund answer; `date` is the day of the refund by the merchant's clock (MM/dd/yyyy). A refund
 * the processor only received is PENDING (docs/conformance.md, Pending refunds).
 */
export function refundAnswer(
  refund: { id: number; amountMinor: number } & {
    [K in keyof ReturnType<typeof refundColumns>]?: ReturnType<typeof refundColumns>[K] | undefined;
  },
  transactionId: number,
  currency: string,
  now: Date,
  processor: 'done' | 'received' = 'done',
): PublicRefund {
  return {
    refundTransactionId: String(refund.id),
    transactionId: String(transactionId),
    amount: minorToAmount(refund.amountMinor, currency),
    ...(refund.taxAmountMinor == null ? {} : { taxAmount: minorToAmount(refund.taxAmountMinor, currency) }),
    currency,
    date: monthDayYear(now),
    ...(refund.reason ? { reason: refund.reason } : {}),
    ...(refund.cancelSubscriptions == null ? {} : { cancelSubscriptions: refund.cancelSubscriptions }),
    ...(refund.transactionMetaData ? { transactionMetaData: refund.transactionMetaData } : {}),
    refundStatus: processor === 'done' ? 'SUCCESS' : 'PENDING',
  };
}
