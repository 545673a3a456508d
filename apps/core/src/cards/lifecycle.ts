import { randomUUID } from 'node:crypto';
import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import {
  amountInMinorUnits,
  DomainError,
  minorToAmount,
  type Refund as PublicRefund,
  type CardTransaction as PublicTransaction,
  type refundInput,
  type TransactionIds,
  transactionIdOf,
  type updateTransactionInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized, executePrepared } from '../db/wire.ts';
import { transactionNotFound } from '../errors.ts';
import { recordEvent } from '../ipn/events.ts';
import {
  presentVendorRefunds,
  recordVendorRefunds,
  takeVendorRefunds,
  undoVendorRefunds,
  type VendorPart,
} from '../marketplace/refunds.ts';
import { openAttempt, settleAttempt } from '../payments/attempts.ts';
import { type ModificationKind, modify } from '../payments/modify.ts';
import { type PaymentOperation, runPayment } from '../payments/pipeline.ts';
import { completeRefundOfAttempt, withdrawAwaitingRefunds } from '../payments/queries.ts';
import { type RefundFollowUp, refundAnswer, refundColumns } from '../payments/refund-answer.ts';
import type { RoutedAccount } from '../processors/accounts/routing.ts';
import type { ModificationOutcome } from '../processors/processor.ts';
import { recordPaymentChange } from '../security/audit/trail.ts';
import { CardTransaction, processorReferenceOf, Refund } from './entities.ts';
import { cardEventParameters } from './events.ts';
import { cardOf, present } from './presentation.ts';
import { cardTransactionExists } from './queries.ts';

type UpdateTransaction = z.output<typeof updateTransactionInput>;
type RefundRequest = z.output<typeof refundInput>;

const reversalWindowSeconds = 8 * 86400;

/** Finds and locks the transaction, so concurrent captures, reversals and refunds of it run one at a time. */
async function lockTransaction(
  em: EntityManager,
  merchantId: number,
  by: TransactionIds,
): Promise<CardTransaction | null> {
  const id = by.transactionId === undefined ? undefined : transactionIdOf(by.transactionId);
  if (id === null) return null;
  const where = id === undefined ? { merchantTransactionId: by.merchantTransactionId } : { id };
  return em.findOne(
    CardTransaction,
    { ...where, merchantId },
    { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['card', 'shopper'] },
  );
}

/** Whether the id or merchantTransactionId names one of the merchant's card transactions (refunds dispatch on it). */
export async function isCardTransaction(ctx: MerchantContext, by: TransactionIds): Promise<boolean> {
  // contracts name exactly one of the two
  const byMerchant = by.transactionId === undefined;
  const id = byMerchant ? null : transactionIdOf(by.transactionId as string);
  if (!byMerchant && id === null) return false;
  const rows = await executePrepared(ctx.em, cardTransactionExists, [
    ctx.merchantId,
    id,
    byMerchant ? by.merchantTransactionId : null,
  ]);
  return rows.length > 0;
}

function requireOpenAuthorization(transaction: CardTransaction): void {
  if (transaction.status === 'CAPTURED')
    throw new DomainError(
      'TRANSACTION_ALREADY_CAPTURED',
      `transaction ${transaction.id} is already captured`,
    );
  if (transaction.status === 'REVERSED') {
    throw new DomainError(
      'AUTHORIZATION_AMOUNT_ALREADY_REVERSED',
      `the authorization ${transaction.id} is already reversed`,
    );
  }
}

/** Checks a reversal of an open authorization and moves it to REVERSED (committed with its attempt). */
function reserveReversal(transaction: CardTransaction, now: Date): Reservation {
  requireOpenAuthorization(transaction);
  if (now.getTime() - transaction.authorizedAt.getTime() > reversalWindowSeconds * 1000) {
    throw new DomainError(
      'AUTHORIZATION_EXPIRED',
      'the authorization is more than 8 days old and can no longer be reversed',
    );
  }
  transaction.status = 'REVERSED';
  return { kind: 'REVERSE', amountMinor: transaction.amountMinor, event: 'Cancellation' };
}

/** The IPN parameters of a change of the transaction; a processor's later confirmation reports the same. */
export function transactionEventParameters(transaction: CardTransaction, amountMinor: number, now: Date) {
  return cardEventParameters(
    cardOf(transaction),
    transaction.shopper,
    { amountMinor, currency: transaction.currency },
    now,
    transaction,
  );
}

/** A change reserved on a transaction: the processor call it stands for, and the event it makes (if any). */
interface Reservation {
  kind: ModificationKind;
  amountMinor: number;
  event?: 'Charge' | 'Cancellation' | 'Refund';
  /** The attempt's reference when a row of the change must name it (a refund). */
  reference?: string;
}

/** The audit action each change is recorded as. */
const auditedAs = {
  CAPTURE: 'capture',
  REVERSE: 'reversal',
  REFUND: 'refund',
  RECALL: 'refund.cancel',
} as const;

interface PreparedChange {
  transaction: CardTransaction;
  now: Date;
  reservation: Reservation;
  reference: string;
  account: RoutedAccount;
}

/**
 * A capture, reversal or refund as a payment operation (payments/pipeline.ts), no lock held across the
 * processor's answer: prepare checks and reserves the change under the row lock (status and amounts move,
 * the attempt is written on the account that authorized the transaction) and commits, so a concurrent
 * change sees it and nothing is ever captured, reversed or refunded beyond what was authorized; call asks
 * the processor by the attempt's reference; record settles the attempt with the event and a keyed call's
 * answer. A processor that confirms later (`received`) leaves the attempt AWAITING: its notification
 * settles it and sends the event then. An unknown outcome leaves the attempt pending: the recovery worker
 * repeats the call by its reference, which the processor does at most once.
 */
function changeOperation<T>(
  ctx: MerchantContext,
  by: TransactionIds,
  notFound: () => Error,
  reserve: (em: EntityManager, transaction: CardTransaction, now: Date) => Reservation | Promise<Reservation>,
  answer: (transaction: CardTransaction, now: Date, outcome: ModificationOutcome) => T,
  followUp?: RefundFollowUp,
): PaymentOperation<PreparedChange, ModificationOutcome, T> {
  return {
    prepare: () =>
      inTransaction(ctx.em, async (em) => {
        const transaction = await lockTransaction(em, ctx.merchantId, by);
        if (!transaction) throw notFound();
        const now = await callNow(ctx, em);
        const reservation = await reserve(em, transaction, now);
        const account = await ctx.processors.account(
          em,
          ctx.merchantId,
          transaction.processorAccountId ?? null,
        );
        const reference = await openAttempt(em, {
          merchantId: ctx.merchantId,
          kind: reservation.kind,
          amountMinor: reservation.amountMinor,
          currency: transaction.currency,
          accountId: account.id,
          idempotencyKey: ctx.keyed?.key,
          transactionId: transaction.id,
          reference: reservation.reference,
        });
        return { transaction, now, reservation, reference, account };
      }),
    call: (ctx, { transaction, reservation, reference, account }) =>
      modify(ctx.processors.connect(account), reservation.kind, {
        reference,
        processorReference: processorReferenceOf(transaction),
        amountMinor: reservation.amountMinor,
        currency: transaction.currency,
      }),
    async record(em, { transaction, now, reservation, reference }, outcome) {
      const { amountMinor, event } = reservation;
      // Not pending any more: recovery or the processor's notification settled it first, and sent its event.
      const done = outcome.status === 'done';
      const settled = await settleAttempt(em, reference, done ? 'DONE' : 'AWAITING', {
        processorReference: outcome.processorReference,
      });
      if (settled && done && event) {
        await recordEvent(ctx, em, event, transactionEventParameters(transaction, amountMinor, now));
      }
      // A refund row is PENDING until the processor has done it (docs/conformance.md, Pending refunds); what
      // follows a refund follows its completion, here or when the processor confirms it (afterRefundDone).
      if (done && reservation.reference) {
        await executePrepared(em, completeRefundOfAttempt, [reservation.reference]);
        await followUp?.(em, transaction.id);
      }
      await recordPaymentChange(ctx, em, auditedAs[reservation.kind], transaction.id);
      const result = answer(transaction, now, outcome);
      await ctx.keyed?.record(em, result);
      return result;
    },
  };
}

/** CAPTURE (full or partial) and AUTH_REVERSAL of an AUTH_ONLY authorization. */
export async function updateTransaction(
  ctx: MerchantContext,
  input: UpdateTransaction,
): Promise<PublicTransaction> {
  const notFound = () =>
    new DomainError(
      'AUTHORIZATION_NOT_FOUND',
      'no authorization matches the transactionId or merchantTransactionId',
    );
  return runPayment(
    ctx,
    changeOperation(
      ctx,
      input,
      notFound,
      (_em, transaction, now) => {
        if (input.cardTransactionType === 'AUTH_REVERSAL') return reserveReversal(transaction, now);
        requireOpenAuthorization(transaction);
        const amountMinor =
          input.amount === undefined
            ? transaction.amountMinor
            : amountInMinorUnits(input.amount, transaction.currency);
        if (amountMinor > transaction.amountMinor) {
          throw new DomainError('VALIDATION_GENERAL_FAILURE', 'amount: exceeds the authorized amount', {
            name: 'amount',
            messageValue: input.amount ?? '',
          });
        }
        transaction.status = 'CAPTURED';
        transaction.capturedMinor = amountMinor;
        return { kind: 'CAPTURE', amountMinor, event: 'Charge' };
      },
      (transaction) => present(transaction),
    ),
  );
}

/**
 * Refunds what was captured, in parts or whole, never beyond it. An authorization not yet captured has
 * nothing to refund: refunding it voids it (see docs/conformance.md, Refunds).
 */
export async function refundTransaction(
  ctx: MerchantContext,
  input: RefundRequest,
  followUp?: RefundFollowUp,
): Promise<PublicRefund> {
  let refund: Refund | undefined;
  let vendorParts: VendorPart[] | null = null;
  return runPayment(
    ctx,
    changeOperation(
      ctx,
      input,
      () => transactionNotFound(input),
      async (em, transaction, now) => {
        const { currency } = transaction;
        let reservation: Reservation;
        if (transaction.status === 'AUTHORIZED') {
          if (
            input.amount !== undefined &&
            amountInMinorUnits(input.amount, currency) !== transaction.amountMinor
          ) {
            throw new DomainError(
              'REFUND_AMOUNT_EXCEEDS_BALANCE',
              'an uncaptured authorization can only be voided whole',
            );
          }
          reservation = reserveReversal(transaction, now);
        } else if (transaction.status === 'REVERSED') {
          throw new DomainError(
            'AUTHORIZATION_AMOUNT_ALREADY_REVERSED',
            `the authorization ${transaction.id} was reversed; nothing was captured`,
          );
        } else {
          const balance = transaction.capturedMinor - transaction.refundedMinor;
          const amountMinor =
            input.amount === undefined ? balance : amountInMinorUnits(input.amount, currency);
          if (amountMinor > balance || balance === 0) {
            throw new DomainError(
              'REFUND_AMOUNT_EXCEEDS_BALANCE',
              `the refundable balance is ${minorToAmount(balance, currency)} ${currency}`,
              {
                name: 'amount',
                ...(input.amount ? { messageValue: input.amount } : {}),
              },
            );
          }
          vendorParts = await takeVendorRefunds(
            em,
            ctx.merchantId,
            transaction,
            { amountMinor, balanceMinor: balance },
            input,
          );
          transaction.refundedMinor += amountMinor;
          reservation = { kind: 'REFUND', amountMinor, event: 'Refund' };
        }
        const reference = randomUUID();
        refund = em.create(Refund, {
          merchantId: ctx.merchantId,
          transaction,
          amountMinor: reservation.amountMinor,
          ...refundColumns(input, currency),
          attemptReference: reference,
          status: 'PENDING',
        });
        if (vendorParts) {
          await em.flush();
          await recordVendorRefunds(em, refund.id, vendorParts);
        }
        return { ...reservation, reference };
      },
      (transaction, now, outcome) => ({
        ...refundAnswer(refund as Refund, transaction.id, transaction.currency, now, outcome.status),
        ...(vendorParts ? presentVendorRefunds(vendorParts, transaction.currency) : {}),
      }),
      followUp,
    ),
  );
}

const notCancellable = (description: string) => new DomainError('REFUND_NOT_CANCELLABLE', description);

/**
 * Cancels every pending refund of a transaction (docs/conformance.md, Pending refunds), as a payment
 * operation: prepare checks that the processor can withdraw a refund it received, withdraws the refunds'
 * attempts (so a late confirmation settles nothing) and gives their amounts back to the transaction and its
 * vendors, all committed with the RECALL attempt; call asks the processor to withdraw them; recovery repeats
 * that call should its answer be lost. A refund still being asked of the processor is not pending yet: 400.
 */
export async function cancelPendingRefunds(
  ctx: MerchantContext,
  by: TransactionIds,
): Promise<{ refundTransactionIds: string[] }> {
  let cancelled: Refund[] = [];
  return runPayment(
    ctx,
    changeOperation(
      ctx,
      by,
      () => transactionNotFound(by),
      async (em, transaction) => {
        const pending = await em.find(
          Refund,
          { merchantId: ctx.merchantId, transaction, status: 'PENDING' },
          { orderBy: { id: 'asc' } },
        );
        if (pending.length === 0)
          throw new DomainError('NO_PENDING_REFUND', `transaction ${transaction.id} has no pending refund`);
        const account = await ctx.processors.account(
          em,
          ctx.merchantId,
          transaction.processorAccountId ?? null,
        );
        if (!ctx.processors.connect(account).withdrawRefunds)
          throw notCancellable('the processor has received the refund and cannot withdraw it');
        const withdrawn = await executeParameterized(em, withdrawAwaitingRefunds, [
          pending.map((refund) => refund.attemptReference),
        ]);
        if (withdrawn.length !== pending.length)
          throw notCancellable('a refund of the transaction is being asked of the processor; retry later');
        let amountMinor = 0;
        for (const refund of pending) {
          refund.status = 'CANCELLED';
          amountMinor += refund.amountMinor;
        }
        transaction.refundedMinor -= amountMinor;
        await undoVendorRefunds(
          em,
          pending.map((refund) => ({ refundId: refund.id, transactionId: transaction.id })),
        );
        cancelled = pending;
        return { kind: 'RECALL', amountMinor };
      },
      () => ({ refundTransactionIds: cancelled.map((refund) => String(refund.id)) }),
    ),
  );
}
