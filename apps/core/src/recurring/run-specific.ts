import { DomainError } from '@paywire/contracts';
import { callNow } from '../clock/clock.ts';
import { advanceClock } from '../clock/service.ts';
import type { MerchantContext } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { subscriptionDueAt } from './queries.ts';
import { subscriptionNotFound } from './subscriptions.ts';

/**
 * The sandbox's run-specific (docs/recurring.md): where the original charges a subscription at once without
 * touching its dates, Paywire moves the merchant's clock to the subscription's next charge (or retry) and wakes
 * the renewal worker, so the charge, its IPNs and every date after it are what that day brings.
 */
export async function runSpecific(ctx: MerchantContext, subscriptionId: number): Promise<void> {
  if (ctx.mode !== 'sandbox')
    throw new DomainError('RESOURCE_NOT_FOUND', 'run-specific exists in sandbox mode only');
  const [due] = await executeParameterized<{ status: string; due_at: string | null }>(
    ctx.em,
    subscriptionDueAt,
    [subscriptionId, ctx.merchantId],
  );
  if (!due) throw subscriptionNotFound(subscriptionId);
  if (due.status !== 'ACTIVE' || due.due_at === null) {
    throw new DomainError(
      'INVALID_STATUS',
      `subscription ${subscriptionId} is ${due.status}: no charge is due`,
      {
        name: 'subscriptionId',
        messageValue: String(subscriptionId),
      },
    );
  }
  const now = await callNow(ctx, ctx.em);
  // the driver hands timestamps over as text
  const dueMs = new Date(due.due_at).getTime();
  await advanceClock(ctx, Math.max(0, Math.ceil((dueMs - now.getTime()) / 1000)));
}
