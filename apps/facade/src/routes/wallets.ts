import type Router from '@koa/router';
import {
  applePaySessionBody,
  createApplePaySessionInput,
  onboardWalletInput,
  updateWalletOnboardingInput,
  validate,
  walletOnboardingBody,
  walletOnboardingIdInput,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond, respondCreated } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, created, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const { wallet } = xmlShapes;
const tag = 'Wallets';
const onboarding = body('WalletOnboarding', walletOnboardingBody, wallet);

/** Apple Pay onboarding and sessions (docs/wallets.md): the original's Tools API calls for Apple Pay on the web. */
export function walletRoutes(router: Router<MerchantState>, core: CoreClient): void {
  const { wallets } = core;

  // As the original: 201, the onboarding's URL in Location, no body.
  route(
    router,
    {
      method: 'POST',
      path: '/wallets/onboarding',
      tag,
      summary:
        'Onboard Apple Pay: register the domains that show the Apple Pay button (added to those registered)',
      request: body('OnboardWallet', onboardWalletInput, wallet),
      answers: [created('The onboarding URL; its last segment is the onboarding id')],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      const { onboardingId } = await wallets.onboard.mutate(input, asMerchant(ctx.state));
      respondCreated(ctx, `/services/2/wallets/onboarding/${onboardingId}`);
    },
  );

  route(
    router,
    {
      method: 'PUT',
      path: '/wallets/onboarding',
      tag,
      summary: 'Register and unregister Apple Pay domains',
      request: body('UpdateWalletOnboarding', updateWalletOnboardingInput, wallet),
      answers: [ok('The domains registered now', onboarding)],
      errors: [404],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      respond(ctx, 200, await wallets.updateOnboarding.mutate(input, asMerchant(ctx.state)), wallet);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/wallets/onboarding/:onboardingId',
      tag,
      summary: 'Retrieve Apple Pay onboarding information',
      params: walletOnboardingIdInput,
      answers: [ok('The domains registered', onboarding)],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(ctx, 200, await wallets.onboarding.query(input, asMerchant(ctx.state)), wallet);
    },
  );

  route(
    router,
    {
      method: 'POST',
      path: '/wallets',
      tag,
      summary: 'Create an Apple Pay session for a registered domain (merchant validation)',
      description:
        "`walletToken` is Apple's merchant session object, base-64 encoded: decode it and pass the object to " +
        '`ApplePaySession.completeMerchantValidation`.',
      request: body('CreateApplePaySession', createApplePaySessionInput, wallet),
      answers: [ok('The session', body('ApplePaySession', applePaySessionBody, wallet))],
      errors: [503],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      respond(ctx, 200, await wallets.createSession.mutate(input, asMerchant(ctx.state)), wallet);
    },
  );
}
