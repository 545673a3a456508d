import { createHash, timingSafeEqual } from 'node:crypto';
import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import {
  type AdyenCredentials,
  type AdyenNotificationItem,
  type adyenNotificationInput,
  type ChargebackStatus,
  DomainError,
} from '@paywire/contracts';
import type { Logger } from '@paywire/observability';
import type { z } from 'zod';
import { CardTransaction } from '../../cards/entities.ts';
import { transactionEventParameters } from '../../cards/lifecycle.ts';
import { reportDisputeStage } from '../../chargebacks/service.ts';
import { callNow } from '../../clock/clock.ts';
import type { CoreServices, MerchantContext } from '../../context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { executeParameterized, executePrepared } from '../../db/wire.ts';
import { recordEvent } from '../../ipn/events.ts';
import { workerContext } from '../../jobs/context.ts';
import { undoVendorRefunds } from '../../marketplace/refunds.ts';
import { processorNotifications } from '../../metrics.ts';
import type { AttemptKind } from '../../payments/attempts.ts';
import { completeRefundOfAttempt } from '../../payments/queries.ts';
import { validNotificationSignature } from './hmac.ts';
import {
  awaitingAttempt,
  markProcessed,
  removeRefundOfAttempt,
  settleAwaitingAttempt,
  storeNotifications,
  takeNotification,
  transactionByPspReference,
  unprocessedNotifications,
} from './queries.ts';

type NotificationInput = z.output<typeof adyenNotificationInput>;

/** A row the store statement wrote: which item it is, and whether it is left to process. */
interface StoredRow {
  id: string;
  psp_reference: string;
  event_code: string;
  success: boolean;
  to_process: boolean;
}

const storedKey = (pspReference: string, eventCode: string, success: boolean) =>
  `${pspReference} ${eventCode} ${success}`;

type NotificationCredentials = Pick<
  AdyenCredentials,
  'hmacKey' | 'notificationUsername' | 'notificationPassword'
>;

const refused = () => new DomainError('UNAUTHORIZED', 'the notification is not signed by this account');

/** Equal in constant time: digests of both sides, so neither length nor content leaks through timing. */
function sameText(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Whether the Authorization header carries the account's notification username and password. */
function validBasicAuth(header: string, credentials: NotificationCredentials): boolean {
  const encoded = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header)?.[1];
  const expected = `${credentials.notificationUsername}:${credentials.notificationPassword}`;
  return sameText(encoded ? Buffer.from(encoded, 'base64').toString('utf8') : '', expected);
}

/**
 * Adyen's notification for one account: HTTP Basic with the account's notification credentials, and every
 * item signed with its HMAC key, or nothing is stored (UNAUTHORIZED). The authentic items are stored in one
 * transaction (a repeated one once), which is what Adyen's acknowledgement promises; the new ones are then
 * processed at once. One that fails there stays stored for the janitor (processUnprocessed): Adyen is still
 * answered, since retrying the delivery would not help.
 */
export async function receiveAdyenNotification(
  services: CoreServices,
  log: Logger,
  input: NotificationInput,
): Promise<{ accepted: true }> {
  const em = services.orm.em.fork();
  const account = await services.processors.notifying(em, input.accountId);
  if (!account) throw refused();
  const { credentials } = account;
  const items = input.notification.notificationItems.map((wrapper) => wrapper.NotificationRequestItem);
  if (!validBasicAuth(input.authorization, credentials)) throw refused();
  if (!items.every((item) => validNotificationSignature(item, account.signingKey))) throw refused();

  // One statement for every item: atomic on its own, with no transaction around it.
  const rows = await executePrepared<StoredRow>(em, storeNotifications, [
    account.id,
    account.merchantId,
    items.map((item) => item.pspReference),
    items.map((item) => item.originalReference ?? null),
    items.map((item) => item.merchantReference),
    items.map((item) => item.eventCode),
    items.map((item) => item.success === 'true'),
    items.map((item) => JSON.stringify(item)),
    items.map(actedOn),
  ]);
  const itemOf = new Map(
    items.map((item) => [storedKey(item.pspReference, item.eventCode, item.success === 'true'), item]),
  );
  const stored: number[] = [];
  for (const row of rows) {
    const item = itemOf.get(storedKey(row.psp_reference, row.event_code, row.success));
    if (item) counted(log, item);
    if (row.to_process) stored.push(Number(row.id));
  }
  for (const id of stored) {
    try {
      await processNotification(services, id);
    } catch (error) {
      log.error(
        { error, notification: id },
        'processing an Adyen notification failed; the janitor retries it',
      );
    }
  }
  return { accepted: true };
}

/** The attempt kinds each modification's notification confirms (a cancel of a refund-as-void is REVERSE). */
const confirmedKinds: Partial<Record<string, AttemptKind[]>> = {
  CAPTURE: ['CAPTURE'],
  CANCELLATION: ['REVERSE'],
  // Our technical cancels never leave an attempt AWAITING (payments/attempts.ts voids it): nothing matches.
  TECHNICAL_CANCEL: ['REVERSE'],
  REFUND: ['REFUND'],
  CANCEL_OR_REFUND: ['REVERSE', 'REFUND'],
};

/**
 * The chargeback status each of Adyen's dispute stages means (docs/chargebacks.md, Adyen's dispute
 * notifications). Adyen's pre-arbitration codes name the cardholder's bank's result: PREARBITRATION_WON is
 * the merchant's loss.
 */
const disputeStages: Partial<Record<string, ChargebackStatus>> = {
  NOTIFICATION_OF_CHARGEBACK: 'NEW',
  CHARGEBACK: 'NEW',
  REQUEST_FOR_INFORMATION: 'PENDING_MERCHANT_RESPONSE',
  CHARGEBACK_REVERSED: 'COMPLETED_WON',
  SECOND_CHARGEBACK: 'COMPLETED_LOST',
  PREARBITRATION_WON: 'COMPLETED_LOST',
  PREARBITRATION_LOST: 'COMPLETED_WON',
};

const disputeStageOf = (item: AdyenNotificationItem) =>
  item.success === 'true' ? disputeStages[item.eventCode] : undefined;

/**
 * Whether an item changes anything here: a modification's outcome, or a dispute stage. Any other code
 * (AUTHORISATION: our authorizations are answered synchronously; CAPTURE_FAILED, REFUND_FAILED) is kept as
 * received, nothing more.
 */
function actedOn(item: AdyenNotificationItem): boolean {
  return item.eventCode in confirmedKinds || disputeStageOf(item) !== undefined;
}

const countedEvents = new Set([
  ...Object.keys(confirmedKinds),
  ...Object.keys(disputeStages),
  'AUTHORISATION',
]);

/**
 * Counts a newly stored item. A failed technical cancel is an operator's to act on: the pipeline failed over
 * after sending it, so the shopper may hold an authorization at this account besides the payment Paywire
 * recorded (README, The payment path).
 */
function counted(log: Logger, item: AdyenNotificationItem): void {
  const event = countedEvents.has(item.eventCode) ? item.eventCode : 'OTHER';
  processorNotifications.inc({ event, success: item.success });
  if (item.eventCode === 'TECHNICAL_CANCEL' && item.success !== 'true') {
    log.error(
      { pspReference: item.pspReference, merchantReference: item.merchantReference, reason: item.reason },
      'Adyen refused a technical cancel: the authorization it names may stand; reverse it in Adyen',
    );
  }
}

/** The merchant's event for a confirmed change: the one the synchronous path sends (cards/lifecycle.ts). */
const eventOf = { CAPTURE: 'Charge', REVERSE: 'Cancellation', REFUND: 'Refund' } as const;

interface StoredNotification {
  id: string;
  account_id: number;
  merchant_id: number;
  body: AdyenNotificationItem;
}

interface AwaitingAttempt {
  id: string;
  reference: string;
  kind: keyof typeof eventOf;
  amount_minor: string;
  transaction_id: string;
}

/**
 * Processes one stored item, once: it is taken under a row lock and marked processed in the same transaction
 * as what it changes, so a concurrent janitor skips it and a crash leaves it for the next run. Idempotent by
 * the item's (pspReference, eventCode, success), which the inbox stores once.
 */
export async function processNotification(services: CoreServices, id: number): Promise<void> {
  await inTransaction(services.orm.em.fork(), async (em) => {
    const [notification] = await executeParameterized<StoredNotification>(em, takeNotification, [id]);
    if (!notification) return;
    const ctx = workerContext(services, notification.merchant_id, em);
    const item = notification.body;
    const kinds = confirmedKinds[item.eventCode];
    const stage = disputeStageOf(item);
    if (kinds) await settleModification(ctx, em, notification.account_id, item, kinds);
    else if (stage) await recordDisputeStage(ctx, em, notification.account_id, item, stage);
    await executeParameterized(em, markProcessed, [notification.id]);
  });
}

function lockTransaction(em: EntityManager, merchantId: number, id: number) {
  return em.findOneOrFail(
    CardTransaction,
    { id, merchantId },
    { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['card', 'shopper'] },
  );
}

/**
 * The processor's outcome of a capture, cancel or refund it had only received: success completes the
 * attempt with the event the synchronous path would have sent; failure undoes what the attempt reserved on
 * its transaction (cards/lifecycle.ts reserves before the call), and no event is sent, since the merchant
 * was never told the change happened. No AWAITING attempt (settled already, or not ours): nothing to do.
 */
async function settleModification(
  ctx: MerchantContext,
  em: EntityManager,
  accountId: number,
  item: AdyenNotificationItem,
  kinds: AttemptKind[],
): Promise<void> {
  const [attempt] = await executeParameterized<AwaitingAttempt>(em, awaitingAttempt, [
    accountId,
    ctx.merchantId,
    kinds,
    item.merchantReference,
    item.originalReference ?? null,
    item.amount.value,
    item.pspReference,
  ]);
  if (!attempt) return;
  const succeeded = item.success === 'true';
  const transaction = await lockTransaction(em, ctx.merchantId, Number(attempt.transaction_id));
  const amountMinor = Number(attempt.amount_minor);
  await executeParameterized(em, settleAwaitingAttempt, [attempt.id, succeeded ? 'DONE' : 'FAILED']);
  if (succeeded) {
    // A refund (or a refund that voided an uncaptured authorization) is pending no more, and what follows a
    // refund follows now (a refunded charge's subscription cancelled).
    if (attempt.kind !== 'CAPTURE') {
      const [refund] = await executePrepared<{ cancel_subscriptions: boolean | null }>(
        em,
        completeRefundOfAttempt,
        [attempt.reference],
      );
      if (refund && refund.cancel_subscriptions !== false)
        await ctx.afterRefundDone?.(ctx, em, transaction.id);
    }
    const now = await callNow(ctx, em);
    await recordEvent(
      ctx,
      em,
      eventOf[attempt.kind],
      transactionEventParameters(transaction, amountMinor, now),
    );
    return;
  }
  if (attempt.kind === 'CAPTURE') transaction.capturedMinor = 0;
  if (attempt.kind === 'REFUND') transaction.refundedMinor -= amountMinor;
  // A capture or a reversal was reserved only on an open authorization (cards/lifecycle.ts): it is one again.
  if (attempt.kind !== 'REFUND') transaction.status = 'AUTHORIZED';
  if (attempt.kind === 'CAPTURE') return;
  // A refund, or a refund of an uncaptured authorization that voided it, left a refund row; a refund of a
  // split sale gives its vendors' parts back with it.
  const removed = await executeParameterized<{ id: number; transaction_id: number }>(
    em,
    removeRefundOfAttempt,
    [attempt.reference],
  );
  await undoVendorRefunds(
    em,
    removed.map((row) => ({ refundId: row.id, transactionId: row.transaction_id })),
  );
}

/**
 * A dispute stage of one of the account's payments, moving its chargeback (chargebacks/service.ts). In
 * Adyen's dispute notifications pspReference is the dispute's own (every stage of one dispute carries it)
 * and originalReference the disputed payment's, its authorization's pspReference. A dispute of a payment
 * Paywire does not know is kept in the inbox only.
 */
async function recordDisputeStage(
  ctx: MerchantContext,
  em: EntityManager,
  accountId: number,
  item: AdyenNotificationItem,
  stage: ChargebackStatus,
): Promise<void> {
  if (!item.originalReference) return;
  const [found] = await executeParameterized<{ id: string }>(em, transactionByPspReference, [
    ctx.merchantId,
    accountId,
    item.originalReference,
  ]);
  if (!found) return;
  await reportDisputeStage(
    ctx,
    em,
    {
      transactionId: Number(found.id),
      accountId,
      reference: item.pspReference,
      amountMinor: item.amount.value,
      currency: item.amount.currency,
      reasonCode: item.additionalData?.chargebackReasonCode?.trim() || null,
      reason: item.reason || null,
    },
    stage,
  );
}

/**
 * The janitor: processes items stored more than `afterSeconds` ago and still unprocessed (core died between
 * acknowledging Adyen and processing them). Returns how many it took up.
 */
export async function processUnprocessed(services: CoreServices, afterSeconds: number, limit = 100) {
  const rows = await executeParameterized<{ id: string }>(services.orm.em.fork(), unprocessedNotifications, [
    afterSeconds,
    limit,
  ]);
  for (const row of rows) await processNotification(services, Number(row.id));
  return rows.length;
}

export const notificationJanitorQueue = 'processor-notifications';

/** The janitor as a pg-boss job every minute; two runs at once are harmless (items are taken under lock). */
export async function scheduleNotificationJanitor(
  services: CoreServices,
  afterSeconds: number,
  onError: (error: unknown) => void,
): Promise<void> {
  const { jobs } = services;
  await jobs.createQueue(notificationJanitorQueue, { policy: 'short', expireInSeconds: 300, retryLimit: 0 });
  await jobs.schedule(notificationJanitorQueue, '* * * * *');
  await jobs.work(notificationJanitorQueue, async () => {
    try {
      await processUnprocessed(services, afterSeconds);
    } catch (error) {
      onError(error);
      throw error;
    }
  });
}
