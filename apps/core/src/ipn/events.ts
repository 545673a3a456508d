import { createHash } from 'node:crypto';
import { type EntityManager, TransactionPropagation } from '@mikro-orm/postgresql';
import {
  DomainError,
  type ErrorName,
  type IpnEvent,
  sendFlagOf,
  transactionTypeOf,
} from '@paywire/contracts';
import { monthDayYear, twoDigits } from '../clock/calendar.ts';
import type { MerchantContext } from '../context.ts';
import { sendWithNext } from '../db/wire.ts';
import { callFacts, type MerchantFacts } from '../merchants/facts.ts';
import type { StoredDestination } from './entities.ts';
import { insertDeliveries } from './queries.ts';
import { ipnSecret, openSecret } from './secret.ts';

/** The event's own parameters; transactionType, testMode and authKey are added here. */
export type EventParameters = Record<string, string | number | undefined>;

/** MM/dd/yyyy hh:mm:ss a, in UTC, as the original's IPNs carry it. */
export function ipnDate(date: Date): string {
  const hours = date.getUTCHours();
  const clock = `${twoDigits(hours % 12 || 12)}:${twoDigits(date.getUTCMinutes())}:${twoDigits(date.getUTCSeconds())} ${hours < 12 ? 'AM' : 'PM'}`;
  return `${monthDayYear(date)} ${clock}`;
}

/** Attempts before a delivery is given up: about 3 days, or about 12 with ensureNotificationReceipt. */
const attemptsFor = (ensureReceipt: boolean) => (ensureReceipt ? 20 : 11);

/** The destinations that want the event. */
export function eventTargets(facts: MerchantFacts, event: IpnEvent): StoredDestination[] {
  const flag = sendFlagOf(event);
  return facts.ipn?.destinations.filter((destination) => destination.enabled.includes(flag)) ?? [];
}

/** Whether the event goes anywhere: a change that reports nothing needs no outbox around it. */
export async function isEventWanted(
  ctx: MerchantContext,
  em: EntityManager,
  event: IpnEvent,
): Promise<boolean> {
  return eventTargets(await callFacts(ctx, em), event).length > 0;
}

/**
 * Records an event for every destination whose flag for it is on, and for each of `alsoTo` (a party of the
 * event with a URL of its own, such as a paid vendor's ipnUrl, whatever the merchant's flags): a delivery
 * row, written through the caller's transaction, so they commit with the change they report or not at all.
 */
export async function recordEvent(
  ctx: MerchantContext,
  em: EntityManager,
  event: IpnEvent,
  parameters: EventParameters,
  alsoTo: readonly string[] = [],
): Promise<void> {
  const facts = await callFacts(ctx, em);
  const destinations = [
    ...new Set([...eventTargets(facts, event).map((target) => target.ipnUrl), ...alsoTo]),
  ];
  if (destinations.length === 0) return;

  const secret = facts.ipnSecret
    ? openSecret(ctx.vault, ctx.merchantId, facts.ipnSecret)
    : await ipnSecret(em, ctx.vault, ctx.merchantId);
  const referenceNumber = String(parameters.referenceNumber ?? '');
  const body = new URLSearchParams({
    transactionType: transactionTypeOf(event),
    ...Object.fromEntries(
      Object.entries(parameters).map(([name, value]) => [name, value === undefined ? '' : String(value)]),
    ),
    testMode: ctx.mode === 'sandbox' ? 'Y' : 'N',
    authKey: createHash('md5')
      .update(referenceNumber + secret)
      .digest('hex'),
  }).toString();

  const maxAttempts = attemptsFor(facts.ipn?.ensureReceipt ?? false);
  if (!em.getTransactionContext())
    throw new Error('an event is recorded in the transaction of the change it reports');
  // The rows are the queue (due at once: next_try_at defaults to now()). Nothing waits for the insert: it
  // travels with the transaction's next statement, at the latest its commit, which fails if it does.
  await sendWithNext(em, insertDeliveries, [
    ctx.merchantId,
    event,
    referenceNumber || null,
    destinations,
    body,
    maxAttempts,
    ctx.requestId ?? null,
  ]);
}

/** A domain failure that is an event in itself (a decline): reported although the call's writes roll back. */
export class ReportedFailure extends DomainError {
  readonly event: IpnEvent;
  readonly parameters: EventParameters;

  constructor(reason: ErrorName, description: string, event: IpnEvent, parameters: EventParameters) {
    super(reason, description);
    this.event = event;
    this.parameters = parameters;
  }
}

/**
 * Records a failure's event after its call rolled back. A keyed call's failure is recorded by the
 * idempotency middleware in the key's own transaction, so it commits once, with the stored answer; any other
 * in a transaction of its own. Nothing opens when no destination wants the event.
 */
export async function recordReportedFailure(ctx: MerchantContext, failure: ReportedFailure): Promise<void> {
  if (ctx.idempotency || !(await isEventWanted(ctx, ctx.em, failure.event))) return;
  await ctx.em.transactional((em: EntityManager) => recordEvent(ctx, em, failure.event, failure.parameters), {
    propagation: TransactionPropagation.REQUIRES_NEW,
  });
}
