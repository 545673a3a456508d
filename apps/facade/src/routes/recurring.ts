import type Router from '@koa/router';
import { createPlanInput, listPlansInput, planIdInput, updatePlanInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

/** Recurring billing (README, Recurring billing): plans, subscriptions, merchant-managed subscriptions. */
export function recurringRoutes(router: Router<MerchantState>, core: CoreClient): void {
  const { plan, plans } = xmlShapes;

  router.post('/recurring/plans', async (ctx) => {
    const input = validate(createPlanInput, readBody(ctx, plan));
    respond(ctx, 200, await core.recurring.createPlan.mutate(input, asMerchant(ctx.state)), plan);
  });

  router.get('/recurring/plans', async (ctx) => {
    const input = validate(listPlansInput, ctx.query);
    respond(ctx, 200, await core.recurring.listPlans.query(input, asMerchant(ctx.state)), plans);
  });

  router.get('/recurring/plans/:planId', async (ctx) => {
    const input = validate(planIdInput, ctx.params);
    respond(ctx, 200, await core.recurring.getPlan.query(input, asMerchant(ctx.state)), plan);
  });

  router.put('/recurring/plans/:planId', async (ctx) => {
    const input = validate(updatePlanInput, { ...readBody(ctx, plan), planId: ctx.params.planId });
    respond(ctx, 200, await core.recurring.updatePlan.mutate(input, asMerchant(ctx.state)), plan);
  });
}
