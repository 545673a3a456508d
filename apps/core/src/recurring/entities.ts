import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type { ChargeFrequency, PlanStatus, SubscriptionStatus } from '@paywire/contracts';
import type { SplitTerms } from '../marketplace/splits.ts';
import { SepaMandate } from '../sepa/entities.ts';
import { Shopper, StoredCard } from '../shoppers/entities.ts';

/*
 * Recurring billing's tables (migration 0016-recurring). Money is in integer minor units of the row's
 * currency; `date` columns are calendar dates (yyyy-mm-dd) of the merchant's clock.
 *
 * recurring_plan: a merchant's plan.
 *   name, currency; recurring_charge_minor: what one period costs; charge_frequency: ONCE ... EVERY 3 YEARS;
 *   trial_period_days: days before the first charge (null: no trial); initial_charge_minor: charged at
 *   creation instead of the first period's recurring amount (null: the recurring amount);
 *   max_number_of_charges: charges after which the subscription is FINISHED (null: no limit);
 *   grace_period_days: days a declined renewal is retried before SUSPENDED (null or 0: no retries, stays
 *   ACTIVE); charge_on_plan_switch: switching to this plan charges at once; status ACTIVE | INACTIVE.
 *
 * subscription: one shopper's subscription; plan_id null for a merchant-managed (ondemand) one.
 *   status ACTIVE | CANCELED | SUSPENDED | FINISHED; currency: the plan's (or the first ondemand charge's);
 *   quantity: multiplies the period's amount; override_*: the subscription's own amounts and trial,
 *   replacing the plan's; soft_descriptor, descriptor_phone_number: shown on the shopper's statement;
 *   auto_renew false: ends (CANCELED) at its next charge date instead of charging;
 *   card_id | sepa_mandate_id: what pays (exactly one); a card is the shopper's vaulted card.
 *   vendor_split: the terms of its split between vendors (0038), applied to each charge; null: none.
 *   The schedule (plan-based only): period n (n >= 1) falls due on anchor_date + (n - anchor_period)
 *   frequencies (month ends clamp: Jan 31, Feb 28, Mar 31); period 0 is the charge made at creation.
 *   next_period: the next period to charge; next_charge_date: its due date (null when nothing is due:
 *   CANCELED, FINISHED, merchant-managed); charges_made: charges that succeeded (for max_number_of_charges).
 *   started_at: creation by the merchant's clock; canceled_at: when it was CANCELED.
 *
 * subscription_charge: one charge of a subscription (chargeId is its id).
 *   period: the schedule's period it pays (0 initial, >= 1 renewals), UNIQUE per subscription so a period is
 *   never charged twice; null for charges outside the schedule (plan switch, merchant-managed, Extended
 *   subscription-charges), which the request's Idempotency-Key guards.
 *   kind INITIAL | RECURRING | SWITCH | MERCHANT; status PENDING (written before the payment is attempted)
 *   | CHARGED | DECLINED; attempt: 1, then one more per retry of a declined period (the acquirer's
 *   reference is derived from (id, attempt): chargeReference in charge.ts);
 *   due_date: when the period fell due (the charge is dated by it); description, from_date, to_date: the
 *   reference's chargeInfo; card_transaction_id | sepa_debit_id: the payment once CHARGED (a SEPA debit is
 *   CHARGED when submitted; its settlement is the debit's own); decline_reason: the acquirer's reason.
 */

export const RecurringPlan = defineEntity({
  name: 'RecurringPlan',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    name: p.string().length(199),
    currency: p.string().length(3),
    recurringChargeMinor: p.bigint('number'),
    chargeFrequency: p.string().length(16).$type<ChargeFrequency>(),
    trialPeriodDays: p.integer().nullable(),
    initialChargeMinor: p.bigint('number').nullable(),
    maxNumberOfCharges: p.integer().nullable(),
    gracePeriodDays: p.integer().nullable(),
    chargeOnPlanSwitch: p.boolean().default(false),
    status: p.string().length(8).$type<PlanStatus>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type RecurringPlan = InferEntity<typeof RecurringPlan>;

export const Subscription = defineEntity({
  name: 'Subscription',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    plan: () => p.manyToOne(RecurringPlan).nullable(),
    shopper: () => p.manyToOne(Shopper),
    status: p.string().length(10).$type<SubscriptionStatus>(),
    currency: p.string().length(3),
    quantity: p.integer().default(1),
    overrideRecurringChargeMinor: p.bigint('number').nullable(),
    overrideTrialPeriodDays: p.integer().nullable(),
    overrideInitialChargeMinor: p.bigint('number').nullable(),
    softDescriptor: p.string().length(20).nullable(),
    descriptorPhoneNumber: p.string().length(20).nullable(),
    autoRenew: p.boolean().default(true),
    card: () => p.manyToOne(StoredCard).nullable(),
    sepaMandate: () => p.manyToOne(SepaMandate).nullable(),
    vendorSplit: p.json<SplitTerms>().nullable(),
    anchorDate: p.date().nullable(),
    anchorPeriod: p.integer().default(1),
    nextPeriod: p.integer().default(1),
    nextChargeDate: p.date().nullable(),
    chargesMade: p.integer().default(0),
    startedAt: p.datetime(),
    canceledAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Subscription = InferEntity<typeof Subscription>;

export type ChargeKind = 'INITIAL' | 'RECURRING' | 'SWITCH' | 'MERCHANT';
export type ChargeStatus = 'PENDING' | 'CHARGED' | 'DECLINED';

export const SubscriptionCharge = defineEntity({
  name: 'SubscriptionCharge',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    subscription: () => p.manyToOne(Subscription),
    period: p.integer().nullable(),
    kind: p.string().length(10).$type<ChargeKind>(),
    status: p.string().length(10).$type<ChargeStatus>(),
    attempt: p.integer().default(1),
    amountMinor: p.bigint('number'),
    currency: p.string().length(3),
    dueDate: p.date(),
    description: p.string().length(200).nullable(),
    fromDate: p.date().nullable(),
    toDate: p.date().nullable(),
    cardTransactionId: p.bigint('number').nullable(),
    sepaDebitId: p.bigint('number').nullable(),
    declineReason: p.string().length(40).nullable(),
    chargedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type SubscriptionCharge = InferEntity<typeof SubscriptionCharge>;
