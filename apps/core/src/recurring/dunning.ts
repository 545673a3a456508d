/**
 * Dunning: what follows a declined renewal. With a grace period (the plan's gracePeriodDays) the charge is
 * retried 1, 3 and 7 days after the first decline, then every 7 days, while within the grace period, and a
 * last time on the day it ends; declined then, the subscription is SUSPENDED: no further attempt until its
 * payment source is updated, which resumes it (update.ts, resumeSuspended): its unpaid period is
 * charged at once and the schedule restarts from that day, so the periods that fell due while it was
 * suspended are not charged. Without a grace period (null or 0) the
 * reference's rule holds: the subscription stays ACTIVE, the declined period is not charged again, and the
 * next period is charged on its date. Every attempt is dated when it fell due by the merchant's clock, so a
 * clock advance across the whole grace period makes each attempt once, in order.
 */

const dayMs = 86_400_000;

/** The day offsets of the retries within a grace period: days 1, 3 and 7, then weekly, then its last day. */
export function retryDays(graceDays: number): number[] {
  const days = [1, 3, 7];
  for (let day = 14; day < graceDays; day += 7) days.push(day);
  return [...days.filter((day) => day < graceDays), graceDays];
}

/** What to do after a declined attempt. */
export type AfterDecline =
  /** No grace period: the period is left unpaid and the next one is charged on its date. */
  { kind: 'skip-period' } | { kind: 'retry'; at: Date } | { kind: 'suspend' };

/**
 * After an attempt at `attemptAt` declined: `failedSince` is when the period's first attempt declined (the
 * same as attemptAt for the first one).
 */
export function afterDecline(graceDays: number | null, failedSince: Date, attemptAt: Date): AfterDecline {
  if (!graceDays || graceDays <= 0) return { kind: 'skip-period' };
  const next = retryDays(graceDays)
    .map((day) => new Date(failedSince.getTime() + day * dayMs))
    .find((at) => at.getTime() > attemptAt.getTime());
  return next ? { kind: 'retry', at: next } : { kind: 'suspend' };
}
