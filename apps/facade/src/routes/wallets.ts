import type Router from '@koa/router';
import {
  createApplePaySessionInput,
  onboardWalletInput,
  updateWalletOnboardingInput,
  validate,
  walletOnboardingIdInput,
} from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

/** Apple Pay onboarding and sessions (docs/wallets.md): the original's Tools API calls for Apple Pay on the web. */
export function walletRoutes(router: Router<MerchantState>, core: CoreClient): void {
  const { wallet } = xmlShapes;

  // As the original: 201, the onboarding's URL in Location, no body.
  router.post('/wallets/onboarding', async (ctx) => {
    const input = validate(onboardWalletInput, readBody(ctx, wallet));
    const { onboardingId } = await core.wallets.onboard.mutate(input, asMerchant(ctx.state));
    ctx.status = 201;
    ctx.set('Location', publicUrl(ctx, `/services/2/wallets/onboarding/${onboardingId}`));
    ctx.body = '';
  });

  router.put('/wallets/onboarding', async (ctx) => {
    const input = validate(updateWalletOnboardingInput, readBody(ctx, wallet));
    respond(ctx, 200, await core.wallets.updateOnboarding.mutate(input, asMerchant(ctx.state)), wallet);
  });

  router.get('/wallets/onboarding/:onboardingId', async (ctx) => {
    const input = validate(walletOnboardingIdInput, ctx.params);
    respond(ctx, 200, await core.wallets.onboarding.query(input, asMerchant(ctx.state)), wallet);
  });

  router.post('/wallets', async (ctx) => {
    const input = validate(createApplePaySessionInput, readBody(ctx, wallet));
    respond(ctx, 200, await core.wallets.createSession.mutate(input, asMerchant(ctx.state)), wallet);
  });
}
