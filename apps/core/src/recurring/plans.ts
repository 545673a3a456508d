import type { EntityManager } from '@mikro-orm/postgresql';
import {
  amountInMinorUnits,
  type createPlanInput,
  DomainError,
  type listPlansInput,
  minorToAmount,
  type PlanPage,
  type Plan as PublicPlan,
  toMinorUnits,
  type updatePlanInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { RecurringPlan } from './entities.ts';
import { type Page, pageOf } from './paging.ts';

type CreatePlan = z.output<typeof createPlanInput>;
type UpdatePlan = z.output<typeof updatePlanInput>;

export function presentPlan(plan: RecurringPlan): PublicPlan {
  const money = (minor: number) => minorToAmount(minor, plan.currency);
  return {
    planId: plan.id,
    name: plan.name,
    currency: plan.currency,
    recurringChargeAmount: money(plan.recurringChargeMinor),
    chargeFrequency: plan.chargeFrequency,
    ...(plan.trialPeriodDays != null ? { trialPeriodDays: plan.trialPeriodDays } : {}),
    ...(plan.initialChargeMinor != null ? { initialChargeAmount: money(plan.initialChargeMinor) } : {}),
    ...(plan.maxNumberOfCharges != null ? { maxNumberOfCharges: plan.maxNumberOfCharges } : {}),
    ...(plan.gracePeriodDays != null ? { gracePeriodDays: plan.gracePeriodDays } : {}),
    chargeOnPlanSwitch: plan.chargeOnPlanSwitch,
    status: plan.status,
  };
}

export async function findPlan(
  em: EntityManager,
  merchantId: number,
  planId: number,
): Promise<RecurringPlan> {
  const plan = await em.findOne(RecurringPlan, { id: planId, merchantId });
  if (!plan) {
    throw new DomainError('PLAN_NOT_FOUND', `plan ${planId} was not found`, {
      name: 'planId',
      messageValue: String(planId),
    });
  }
  return plan;
}

/** A subscription starts on, or switches to, an ACTIVE plan only. */
export function requireActivePlan(plan: RecurringPlan, property: string): void {
  if (plan.status !== 'ACTIVE') {
    throw new DomainError('INVALID_STATUS', `${property}: plan ${plan.id} is INACTIVE`, {
      name: property,
      messageValue: String(plan.id),
    });
  }
}

export async function createPlan(ctx: MerchantContext, input: CreatePlan): Promise<PublicPlan> {
  return inTransaction(ctx.em, async (em) => {
    const plan = em.create(RecurringPlan, {
      merchantId: ctx.merchantId,
      name: input.name,
      currency: input.currency,
      recurringChargeMinor: toMinorUnits(input.recurringChargeAmount, input.currency),
      chargeFrequency: input.chargeFrequency,
      // a trial of 0 days is no trial
      trialPeriodDays: input.trialPeriodDays ? input.trialPeriodDays : null,
      initialChargeMinor:
        input.initialChargeAmount === undefined
          ? null
          : toMinorUnits(input.initialChargeAmount, input.currency),
      maxNumberOfCharges: input.maxNumberOfCharges ?? null,
      gracePeriodDays: input.gracePeriodDays ?? null,
      chargeOnPlanSwitch: input.chargeOnPlanSwitch,
      status: input.status,
    });
    await em.flush();
    return presentPlan(plan);
  });
}

export async function getPlan(ctx: MerchantContext, planId: number): Promise<PublicPlan> {
  return presentPlan(await findPlan(ctx.em, ctx.merchantId, planId));
}

const unchangeable = (name: string, value: unknown, why: string) =>
  new DomainError('NON_UPDATABLE_FIELD', `${name}: ${why}`, { name, messageValue: String(value) });

/**
 * The reference's update rules: the recurring amount, currency and charge frequency are fixed (sent, they must
 * be the plan's own); a trial or an initial charge cannot be added to a plan created without one, nor removed from
 * one created with it (a trial of 0 would remove it). Changes apply to the plan's future charges.
 */
export async function updatePlan(ctx: MerchantContext, input: UpdatePlan): Promise<PublicPlan> {
  return inTransaction(ctx.em, async (em) => {
    const plan = await findPlan(em, ctx.merchantId, input.planId);
    if (input.currency !== undefined && input.currency !== plan.currency) {
      throw unchangeable('currency', input.currency, 'the currency of a plan cannot change');
    }
    if (input.chargeFrequency !== undefined && input.chargeFrequency !== plan.chargeFrequency) {
      throw unchangeable(
        'chargeFrequency',
        input.chargeFrequency,
        'the charge frequency of a plan cannot change',
      );
    }
    if (
      input.recurringChargeAmount !== undefined &&
      amountInMinorUnits(input.recurringChargeAmount, plan.currency, 'recurringChargeAmount') !==
        plan.recurringChargeMinor
    ) {
      throw unchangeable(
        'recurringChargeAmount',
        input.recurringChargeAmount,
        'the recurring charge amount of a plan cannot change (a subscription may override it)',
      );
    }
    if (input.trialPeriodDays !== undefined) {
      if (plan.trialPeriodDays === null && input.trialPeriodDays > 0) {
        throw new DomainError(
          'CANNOT_ADD_ELEMENT',
          'trialPeriodDays: a trial cannot be added to a plan created without one',
          {
            name: 'trialPeriodDays',
            messageValue: String(input.trialPeriodDays),
          },
        );
      }
      if (plan.trialPeriodDays !== null && input.trialPeriodDays === 0) {
        throw new DomainError(
          'CANNOT_DELETE_ELEMENT',
          'trialPeriodDays: the trial of a plan cannot be removed',
          {
            name: 'trialPeriodDays',
            messageValue: '0',
          },
        );
      }
      if (plan.trialPeriodDays !== null) plan.trialPeriodDays = input.trialPeriodDays;
    }
    if (input.initialChargeAmount !== undefined) {
      if (plan.initialChargeMinor === null) {
        throw new DomainError(
          'CANNOT_ADD_ELEMENT',
          'initialChargeAmount: an initial charge cannot be added to a plan created without one',
          { name: 'initialChargeAmount', messageValue: input.initialChargeAmount },
        );
      }
      plan.initialChargeMinor = amountInMinorUnits(
        input.initialChargeAmount,
        plan.currency,
        'initialChargeAmount',
      );
    }
    if (input.name !== undefined) plan.name = input.name;
    if (input.maxNumberOfCharges !== undefined) plan.maxNumberOfCharges = input.maxNumberOfCharges;
    if (input.gracePeriodDays !== undefined) plan.gracePeriodDays = input.gracePeriodDays;
    if (input.chargeOnPlanSwitch !== undefined) plan.chargeOnPlanSwitch = input.chargeOnPlanSwitch;
    if (input.status !== undefined) plan.status = input.status;
    await em.flush();
    return presentPlan(plan);
  });
}

export async function listPlans(
  ctx: MerchantContext,
  input: z.output<typeof listPlansInput>,
): Promise<PlanPage> {
  const page: Page<RecurringPlan> = await pageOf(
    ctx.em,
    RecurringPlan,
    { merchantId: ctx.merchantId, ...(input.status ? { status: input.status } : {}) },
    input,
  );
  return {
    ...(page.totalResults !== undefined ? { totalResults: page.totalResults } : {}),
    lastPage: page.lastPage,
    plans: page.items.map((plan) =>
      input.fulldescription ? presentPlan(plan) : { planId: plan.id, name: plan.name },
    ),
  };
}
