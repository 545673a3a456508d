import {
  createOndemandInput,
  createPlanInput,
  createSubscriptionInput,
  extendedSubscriptionChargeInput,
  listChargesInput,
  listPlansInput,
  listSubscriptionsInput,
  ondemandChargeInput,
  planIdInput,
  resolveChargeInput,
  subscriptionIdInput,
  subscriptionPreNotificationInput,
  switchChargeAmountInput,
  updatePlanInput,
  updateSubscriptionInput,
} from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { createSubscription } from './creation.ts';
import { extendedSubscriptionCharge } from './extended-charge.ts';
import { chargeOndemand, createOndemand, getOndemand, updateOndemand } from './ondemand.ts';
import { createPlan, getPlan, listPlans, updatePlan } from './plans.ts';
import { subscriptionPreNotification } from './reminders.ts';
import { runSpecific } from './run-specific.ts';
import { listCharges, resolveCharge } from './subscription-charges.ts';
import { getSubscription, listSubscriptions } from './subscriptions.ts';
import { switchChargeAmount } from './switching.ts';
import { updateSubscription } from './update.ts';

/** Calls that may reach the acquirer run in phases (no transaction held across it; idempotency/middleware.ts). */
const charging = merchantProcedure.meta({ phased: true });

export const recurringRouter = router({
  createPlan: merchantProcedure.input(createPlanInput).mutation(({ ctx, input }) => createPlan(ctx, input)),
  updatePlan: merchantProcedure.input(updatePlanInput).mutation(({ ctx, input }) => updatePlan(ctx, input)),
  getPlan: merchantProcedure.input(planIdInput).query(({ ctx, input }) => getPlan(ctx, input.planId)),
  listPlans: merchantProcedure.input(listPlansInput).query(({ ctx, input }) => listPlans(ctx, input)),

  createSubscription: charging
    .input(createSubscriptionInput)
    .mutation(({ ctx, input }) => createSubscription(ctx, input)),
  updateSubscription: charging
    .input(updateSubscriptionInput)
    .mutation(({ ctx, input }) => updateSubscription(ctx, input)),
  getSubscription: merchantProcedure
    .input(subscriptionIdInput)
    .query(({ ctx, input }) => getSubscription(ctx, input.subscriptionId)),
  listSubscriptions: merchantProcedure
    .input(listSubscriptionsInput)
    .query(({ ctx, input }) => listSubscriptions(ctx, input)),
  listCharges: merchantProcedure.input(listChargesInput).query(({ ctx, input }) => listCharges(ctx, input)),
  resolveCharge: merchantProcedure
    .input(resolveChargeInput)
    .query(({ ctx, input }) => resolveCharge(ctx, input)),
  switchChargeAmount: merchantProcedure
    .input(switchChargeAmountInput)
    .query(({ ctx, input }) => switchChargeAmount(ctx, input)),
  runSpecific: merchantProcedure
    .input(subscriptionIdInput)
    .mutation(({ ctx, input }) => runSpecific(ctx, input.subscriptionId)),
  preNotification: merchantProcedure
    .input(subscriptionPreNotificationInput)
    .query(({ ctx, input }) => subscriptionPreNotification(ctx, input)),
  extendedCharge: charging
    .input(extendedSubscriptionChargeInput)
    .mutation(({ ctx, input }) => extendedSubscriptionCharge(ctx, input)),

  createOndemand: charging
    .input(createOndemandInput)
    .mutation(({ ctx, input }) => createOndemand(ctx, input)),
  chargeOndemand: charging
    .input(ondemandChargeInput)
    .mutation(({ ctx, input }) => chargeOndemand(ctx, input)),
  updateOndemand: charging
    .input(updateSubscriptionInput)
    .mutation(({ ctx, input }) => updateOndemand(ctx, input)),
  getOndemand: merchantProcedure
    .input(subscriptionIdInput)
    .query(({ ctx, input }) => getOndemand(ctx, input.subscriptionId)),
  listOndemand: merchantProcedure
    .input(listSubscriptionsInput)
    .query(({ ctx, input }) => listSubscriptions(ctx, input, true)),
});
