import { createPlanInput, listPlansInput, planIdInput, updatePlanInput } from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { createPlan, getPlan, listPlans, updatePlan } from './plans.ts';

export const recurringRouter = router({
  createPlan: merchantProcedure.input(createPlanInput).mutation(({ ctx, input }) => createPlan(ctx, input)),
  updatePlan: merchantProcedure.input(updatePlanInput).mutation(({ ctx, input }) => updatePlan(ctx, input)),
  getPlan: merchantProcedure.input(planIdInput).query(({ ctx, input }) => getPlan(ctx, input.planId)),
  listPlans: merchantProcedure.input(listPlansInput).query(({ ctx, input }) => listPlans(ctx, input)),
});
