import {
  configureWalletKeysInput,
  createApplePaySessionInput,
  onboardWalletInput,
  updateWalletOnboardingInput,
  walletOnboardingIdInput,
} from '@paywire/contracts';
import { z } from 'zod';
import { adminProcedure, merchantProcedure, router } from '../trpc.ts';
import { configureWalletKeys, walletKeysView } from './keys.ts';
import {
  applePayOnboarding,
  createApplePaySession,
  onboardApplePay,
  updateApplePayOnboarding,
} from './onboarding.ts';

/**
 * Merchants' wallet decryption keys, for admin callers: set (sealed by the card vault) and shown without keys.
 * A merchant's Apple Pay domains and sessions (docs/wallets.md, Apple Pay onboarding and sessions).
 */
export const walletsRouter = router({
  onboard: merchantProcedure
    .input(onboardWalletInput)
    .mutation(({ ctx, input }) => onboardApplePay(ctx, input)),
  updateOnboarding: merchantProcedure
    .input(updateWalletOnboardingInput)
    .mutation(({ ctx, input }) => updateApplePayOnboarding(ctx, input)),
  onboarding: merchantProcedure
    .input(walletOnboardingIdInput)
    .query(({ ctx, input }) => applePayOnboarding(ctx, input.onboardingId)),
  createSession: merchantProcedure
    .input(createApplePaySessionInput)
    .mutation(({ ctx, input }) => createApplePaySession(ctx, input)),
  configureKeys: adminProcedure
    .input(configureWalletKeysInput)
    .mutation(({ ctx, input }) => configureWalletKeys(ctx.em, ctx.vault, input, ctx.origin)),
  keys: adminProcedure
    .input(z.object({ merchantId: z.number().int().positive().max(999_999_999) }))
    .query(({ ctx, input }) => walletKeysView(ctx.em, ctx.vault, input.merchantId)),
});
