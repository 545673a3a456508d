import type Router from '@koa/router';
import {
  chargePageBody,
  createOndemandInput,
  createPlanInput,
  createSubscriptionInput,
  extendedSubscriptionChargeInput,
  listChargesInput,
  listPlansInput,
  listSubscriptionsInput,
  ondemandChargeInput,
  planBody,
  planIdInput,
  planPageBody,
  resolveChargeInput,
  subscriptionBody,
  subscriptionChargeBody,
  subscriptionIdInput,
  subscriptionPageBody,
  switchChargeAmountBody,
  switchChargeAmountInput,
  updatePlanInput,
  updateSubscriptionInput,
  validate,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond, respondCreated } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, created, noContent, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const tag = 'Recurring billing';
const plan = body('Plan', planBody, xmlShapes.plan);
const subscription = body('Subscription', subscriptionBody, xmlShapes.subscription);
const subscriptionCharge = body('SubscriptionCharge', subscriptionChargeBody, xmlShapes.charge);
const subscriptionPage = ok(
  'A page of subscriptions',
  body('SubscriptionPage', subscriptionPageBody, xmlShapes.subscriptions),
);

/**
 * Recurring billing (README, Recurring billing): plans, plan-based subscriptions and their charges,
 * merchant-managed (ondemand) subscriptions, and the Extended API's subscription charge.
 */
export function recurringRoutes(router: Router<MerchantState>, core: CoreClient): void {
  const recurring = core.recurring;

  // As the original: 200 with the plan, and its URL in Location.
  route(
    router,
    {
      method: 'POST',
      path: '/recurring/plans',
      tag,
      summary: 'Create a plan',
      request: body('CreatePlan', createPlanInput, xmlShapes.plan),
      answers: [{ status: 200, description: 'The plan', body: plan, headers: { Location: 'The plan URL' } }],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      const created = await recurring.createPlan.mutate(input, asMerchant(ctx.state));
      ctx.set('Location', publicUrl(ctx, `/services/2/recurring/plans/${created.planId}`));
      respond(ctx, 200, created, xmlShapes.plan);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/recurring/plans',
      tag,
      summary: "The merchant's plans, newest first, a page at a time",
      query: listPlansInput,
      answers: [ok('A page of plans', body('PlanPage', planPageBody, xmlShapes.plans))],
    },
    async (ctx, { query }) => {
      const input = validate(query, ctx.query);
      respond(ctx, 200, await recurring.listPlans.query(input, asMerchant(ctx.state)), xmlShapes.plans);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/recurring/plans/:planId',
      tag,
      summary: 'Retrieve a plan',
      params: planIdInput,
      answers: [ok('The plan', plan)],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(ctx, 200, await recurring.getPlan.query(input, asMerchant(ctx.state)), xmlShapes.plan);
    },
  );

  route(
    router,
    {
      method: 'PUT',
      path: '/recurring/plans/:planId',
      tag,
      summary: 'Update a plan (currency and frequency are fixed; a trial or initial charge cannot be added)',
      params: planIdInput,
      request: body('UpdatePlan', updatePlanInput, xmlShapes.plan),
      answers: [ok('The plan', plan)],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, { ...readBody(ctx, request.shape), planId: ctx.params.planId });
      respond(ctx, 200, await recurring.updatePlan.mutate(input, asMerchant(ctx.state)), xmlShapes.plan);
    },
  );

  // As the original: 200 with the subscription, and its URL in Location when a card pays (not for SEPA).
  route(
    router,
    {
      method: 'POST',
      path: '/recurring/subscriptions',
      tag,
      summary: 'Create a subscription to a plan, making its initial charge (none during a trial)',
      request: body('CreateSubscription', createSubscriptionInput, xmlShapes.subscription),
      answers: [
        {
          status: 200,
          description: 'The subscription, with the charge made',
          body: subscription,
          headers: { Location: 'The subscription URL (when a card pays)' },
        },
      ],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      const created = await recurring.createSubscription.mutate(input, asMerchant(ctx.state));
      if (created.paymentSource.creditCardInfo) {
        ctx.set('Location', publicUrl(ctx, `/services/2/recurring/subscriptions/${created.subscriptionId}`));
      }
      respond(ctx, 200, created, xmlShapes.subscription);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/recurring/subscriptions',
      tag,
      summary: "The merchant's plan-based subscriptions, newest first, by status, plan or shopper",
      query: listSubscriptionsInput,
      answers: [subscriptionPage],
    },
    async (ctx, { query }) => {
      const input = validate(query, ctx.query);
      const page = await recurring.listSubscriptions.query(input, asMerchant(ctx.state));
      respond(ctx, 200, page, xmlShapes.subscriptions);
    },
  );

  // Before '/recurring/subscriptions/:subscriptionId/...', whose id would otherwise be 'charges'.
  route(
    router,
    {
      method: 'GET',
      path: '/recurring/subscriptions/charges/resolve',
      tag,
      summary: 'The subscription charge of a transaction',
      query: resolveChargeInput,
      answers: [ok('The charge', subscriptionCharge)],
    },
    async (ctx, { query }) => {
      const input = validate(query, ctx.query);
      respond(ctx, 200, await recurring.resolveCharge.query(input, asMerchant(ctx.state)), xmlShapes.charge);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/recurring/subscriptions/:subscriptionId',
      tag,
      summary: 'Retrieve a subscription',
      params: subscriptionIdInput,
      answers: [ok('The subscription', subscription)],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      const found = await recurring.getSubscription.query(input, asMerchant(ctx.state));
      respond(ctx, 200, found, xmlShapes.subscription);
    },
  );

  route(
    router,
    {
      method: 'PUT',
      path: '/recurring/subscriptions/:subscriptionId',
      tag,
      summary: 'Update a subscription: quantity, overrides, plan switch, payment source, autoRenew, CANCELED',
      params: subscriptionIdInput,
      request: body('UpdateSubscription', updateSubscriptionInput, xmlShapes.subscription),
      answers: [ok('The subscription, with the plan switch charge if one was made', subscription)],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, {
        ...readBody(ctx, request.shape),
        subscriptionId: ctx.params.subscriptionId,
      });
      const updated = await recurring.updateSubscription.mutate(input, asMerchant(ctx.state));
      respond(ctx, 200, updated, xmlShapes.subscription);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/recurring/subscriptions/:subscriptionId/charges',
      tag,
      summary: "A subscription's charges, newest first",
      params: subscriptionIdInput,
      query: listChargesInput,
      answers: [ok('A page of charges', body('ChargePage', chargePageBody, xmlShapes.charges))],
    },
    async (ctx, { query }) => {
      const input = validate(query, { ...ctx.query, subscriptionId: ctx.params.subscriptionId });
      respond(ctx, 200, await recurring.listCharges.query(input, asMerchant(ctx.state)), xmlShapes.charges);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/recurring/subscriptions/:subscriptionId/switch-charge-amount',
      tag,
      summary: 'What switching to another plan would charge now',
      params: subscriptionIdInput,
      query: switchChargeAmountInput,
      answers: [
        ok('The amount', body('SwitchChargeAmount', switchChargeAmountBody, xmlShapes.switchChargeAmount)),
      ],
    },
    async (ctx, { query }) => {
      const input = validate(query, { ...ctx.query, subscriptionId: ctx.params.subscriptionId });
      respond(
        ctx,
        200,
        await recurring.switchChargeAmount.query(input, asMerchant(ctx.state)),
        xmlShapes.switchChargeAmount,
      );
    },
  );

  // The sandbox's subscription simulator, a GET in the original: 204 once the merchant's clock is at the charge.
  route(
    router,
    {
      method: 'GET',
      path: '/subscriptions/:subscriptionId/run-specific',
      tag,
      summary:
        "Sandbox: move the merchant's clock to the subscription's next charge (or retry) and run renewals",
      params: subscriptionIdInput,
      answers: [noContent('The clock is at the charge; the renewal worker runs it')],
    },
    async (ctx, { params }) => {
      const input = validate(params, { subscriptionId: ctx.params.subscriptionId });
      await recurring.runSpecific.mutate(input, asMerchant(ctx.state));
      ctx.status = 204;
    },
  );

  // The Extended API: 201, the charge's URL in Location, no body (see docs/conformance.md, Status codes).
  route(
    router,
    {
      method: 'POST',
      path: '/subscriptions/:subscriptionId/subscription-charges',
      tag,
      summary: 'Extended API: charge a subscription outside its schedule',
      params: subscriptionIdInput,
      request: body(
        'ExtendedSubscriptionCharge',
        extendedSubscriptionChargeInput,
        xmlShapes.subscriptionCharge,
      ),
      answers: [created('The charge URL; its last segment is the chargeId', 'Charged; no body')],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, {
        ...readBody(ctx, request.shape),
        subscriptionId: ctx.params.subscriptionId,
      });
      const { chargeId } = await recurring.extendedCharge.mutate(input, asMerchant(ctx.state));
      respondCreated(
        ctx,
        `/services/2/subscriptions/${input.subscriptionId}/subscription-charges/${chargeId}`,
      );
    },
  );

  route(
    router,
    {
      method: 'POST',
      path: '/recurring/ondemand',
      tag,
      summary: 'Create a merchant-managed subscription with its first charge',
      request: body('CreateMerchantManagedSubscription', createOndemandInput, xmlShapes.charge),
      answers: [ok('The charge, naming its subscription', subscriptionCharge)],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      respond(
        ctx,
        200,
        await recurring.createOndemand.mutate(input, asMerchant(ctx.state)),
        xmlShapes.charge,
      );
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/recurring/ondemand',
      tag,
      summary: "The merchant's merchant-managed subscriptions, newest first",
      query: listSubscriptionsInput,
      answers: [subscriptionPage],
    },
    async (ctx, { query }) => {
      const input = validate(query, ctx.query);
      const page = await recurring.listOndemand.query(input, asMerchant(ctx.state));
      respond(ctx, 200, page, xmlShapes.subscriptions);
    },
  );

  route(
    router,
    {
      method: 'POST',
      path: '/recurring/ondemand/:subscriptionId',
      tag,
      summary: 'Charge a merchant-managed subscription',
      params: subscriptionIdInput,
      request: body('MerchantManagedCharge', ondemandChargeInput, xmlShapes.charge),
      answers: [ok('The charge', subscriptionCharge)],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, {
        ...readBody(ctx, request.shape),
        subscriptionId: ctx.params.subscriptionId,
      });
      respond(
        ctx,
        200,
        await recurring.chargeOndemand.mutate(input, asMerchant(ctx.state)),
        xmlShapes.charge,
      );
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/recurring/ondemand/:subscriptionId',
      tag,
      summary: 'Retrieve a merchant-managed subscription',
      params: subscriptionIdInput,
      answers: [ok('The subscription', subscription)],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(
        ctx,
        200,
        await recurring.getOndemand.query(input, asMerchant(ctx.state)),
        xmlShapes.subscription,
      );
    },
  );

  route(
    router,
    {
      method: 'PUT',
      path: '/recurring/ondemand/:subscriptionId',
      tag,
      summary: 'Update a merchant-managed subscription: payment source, descriptor, CANCELED',
      params: subscriptionIdInput,
      request: body('UpdateMerchantManagedSubscription', updateSubscriptionInput, xmlShapes.subscription),
      answers: [ok('The subscription', subscription)],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, {
        ...readBody(ctx, request.shape),
        subscriptionId: ctx.params.subscriptionId,
      });
      const updated = await recurring.updateOndemand.mutate(input, asMerchant(ctx.state));
      respond(ctx, 200, updated, xmlShapes.subscription);
    },
  );
}
