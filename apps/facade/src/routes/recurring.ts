import type Router from '@koa/router';
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
  switchChargeAmountInput,
  updatePlanInput,
  updateSubscriptionInput,
  validate,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

/**
 * Recurring billing (README, Recurring billing): plans, plan-based subscriptions and their charges,
 * merchant-managed (ondemand) subscriptions, and the Extended API's subscription charge.
 */
export function recurringRoutes(router: Router<MerchantState>, core: CoreClient): void {
  const { plan, plans, subscription, subscriptions, charge, charges } = xmlShapes;
  const recurring = core.recurring;

  // As the original: 200 with the plan, and its URL in Location.
  router.post('/recurring/plans', async (ctx) => {
    const input = validate(createPlanInput, readBody(ctx, plan));
    const created = await recurring.createPlan.mutate(input, asMerchant(ctx.state));
    ctx.set('Location', publicUrl(ctx, `/services/2/recurring/plans/${created.planId}`));
    respond(ctx, 200, created, plan);
  });

  router.get('/recurring/plans', async (ctx) => {
    const input = validate(listPlansInput, ctx.query);
    respond(ctx, 200, await recurring.listPlans.query(input, asMerchant(ctx.state)), plans);
  });

  router.get('/recurring/plans/:planId', async (ctx) => {
    const input = validate(planIdInput, ctx.params);
    respond(ctx, 200, await recurring.getPlan.query(input, asMerchant(ctx.state)), plan);
  });

  router.put('/recurring/plans/:planId', async (ctx) => {
    const input = validate(updatePlanInput, { ...readBody(ctx, plan), planId: ctx.params.planId });
    respond(ctx, 200, await recurring.updatePlan.mutate(input, asMerchant(ctx.state)), plan);
  });

  // As the original: 200 with the subscription, and its URL in Location when a card pays (not for SEPA).
  router.post('/recurring/subscriptions', async (ctx) => {
    const input = validate(createSubscriptionInput, readBody(ctx, subscription));
    const created = await recurring.createSubscription.mutate(input, asMerchant(ctx.state));
    if (created.paymentSource.creditCardInfo) {
      ctx.set('Location', publicUrl(ctx, `/services/2/recurring/subscriptions/${created.subscriptionId}`));
    }
    respond(ctx, 200, created, subscription);
  });

  router.get('/recurring/subscriptions', async (ctx) => {
    const input = validate(listSubscriptionsInput, ctx.query);
    respond(ctx, 200, await recurring.listSubscriptions.query(input, asMerchant(ctx.state)), subscriptions);
  });

  // Before '/recurring/subscriptions/:subscriptionId/...', whose id would otherwise be 'charges'.
  router.get('/recurring/subscriptions/charges/resolve', async (ctx) => {
    const input = validate(resolveChargeInput, ctx.query);
    respond(ctx, 200, await recurring.resolveCharge.query(input, asMerchant(ctx.state)), charge);
  });

  router.get('/recurring/subscriptions/:subscriptionId', async (ctx) => {
    const input = validate(subscriptionIdInput, ctx.params);
    respond(ctx, 200, await recurring.getSubscription.query(input, asMerchant(ctx.state)), subscription);
  });

  router.put('/recurring/subscriptions/:subscriptionId', async (ctx) => {
    const input = validate(updateSubscriptionInput, {
      ...readBody(ctx, subscription),
      subscriptionId: ctx.params.subscriptionId,
    });
    respond(ctx, 200, await recurring.updateSubscription.mutate(input, asMerchant(ctx.state)), subscription);
  });

  router.get('/recurring/subscriptions/:subscriptionId/charges', async (ctx) => {
    const input = validate(listChargesInput, { ...ctx.query, subscriptionId: ctx.params.subscriptionId });
    respond(ctx, 200, await recurring.listCharges.query(input, asMerchant(ctx.state)), charges);
  });

  router.get('/recurring/subscriptions/:subscriptionId/switch-charge-amount', async (ctx) => {
    const input = validate(switchChargeAmountInput, {
      ...ctx.query,
      subscriptionId: ctx.params.subscriptionId,
    });
    respond(
      ctx,
      200,
      await recurring.switchChargeAmount.query(input, asMerchant(ctx.state)),
      xmlShapes.switchChargeAmount,
    );
  });

  // The Extended API: 201, the charge's URL in Location, no body (see docs/conformance.md, Status codes).
  // The sandbox's subscription simulator, a GET in the original: 204 once the merchant's clock is at the charge.
  router.get('/subscriptions/:subscriptionId/run-specific', async (ctx) => {
    const input = validate(subscriptionIdInput, { subscriptionId: ctx.params.subscriptionId });
    await recurring.runSpecific.mutate(input, asMerchant(ctx.state));
    ctx.status = 204;
  });

  router.post('/subscriptions/:subscriptionId/subscription-charges', async (ctx) => {
    const input = validate(extendedSubscriptionChargeInput, {
      ...readBody(ctx, xmlShapes.subscriptionCharge),
      subscriptionId: ctx.params.subscriptionId,
    });
    const { chargeId } = await recurring.extendedCharge.mutate(input, asMerchant(ctx.state));
    ctx.status = 201;
    ctx.set(
      'Location',
      publicUrl(ctx, `/services/2/subscriptions/${input.subscriptionId}/subscription-charges/${chargeId}`),
    );
    ctx.body = '';
  });

  router.post('/recurring/ondemand', async (ctx) => {
    const input = validate(createOndemandInput, readBody(ctx, charge));
    respond(ctx, 200, await recurring.createOndemand.mutate(input, asMerchant(ctx.state)), charge);
  });

  router.get('/recurring/ondemand', async (ctx) => {
    const input = validate(listSubscriptionsInput, ctx.query);
    respond(ctx, 200, await recurring.listOndemand.query(input, asMerchant(ctx.state)), subscriptions);
  });

  router.post('/recurring/ondemand/:subscriptionId', async (ctx) => {
    const input = validate(ondemandChargeInput, {
      ...readBody(ctx, charge),
      subscriptionId: ctx.params.subscriptionId,
    });
    respond(ctx, 200, await recurring.chargeOndemand.mutate(input, asMerchant(ctx.state)), charge);
  });

  router.get('/recurring/ondemand/:subscriptionId', async (ctx) => {
    const input = validate(subscriptionIdInput, ctx.params);
    respond(ctx, 200, await recurring.getOndemand.query(input, asMerchant(ctx.state)), subscription);
  });

  router.put('/recurring/ondemand/:subscriptionId', async (ctx) => {
    const input = validate(updateSubscriptionInput, {
      ...readBody(ctx, subscription),
      subscriptionId: ctx.params.subscriptionId,
    });
    respond(ctx, 200, await recurring.updateOndemand.mutate(input, asMerchant(ctx.state)), subscription);
  });
}
