import { z } from 'zod';
import { positiveId, text } from './primitives.ts';

/**
 * Apple Pay on the web through Paywire (docs/wallets.md, Apple Pay onboarding and sessions): the merchant's
 * domains that show the Apple Pay button (`/wallets/onboarding`) and the payment session the button's
 * merchant validation asks for (`POST /wallets`), as the original's reference defines them.
 */

/** The one wallet these operations serve; the reference's other wallet types here (Masterpass, Visa Checkout) are retired. */
const applePayType = z.literal('APPLE_PAY', { error: 'must be APPLE_PAY' });

/** A web domain as Apple registers it: a host name, lower case, without a scheme, port or path. */
const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
    'must be a domain name without https:// (e.g. shop.example.com)',
  );

/** Apple registers at most 99 domains for one merchant. */
export const maxApplePayDomains = 99;
const domains = z.array(domain).min(1, 'must name at least one domain').max(maxApplePayDomains);

/** POST /wallets/onboarding: domains to register (added to those registered already). */
export const onboardWalletInput = z.object({
  walletType: applePayType,
  applePay: z.object({ domains }),
});

/** PUT /wallets/onboarding: domains to register and domains to unregister, at least one of the two. */
export const updateWalletOnboardingInput = z.object({
  walletType: applePayType,
  applePay: z
    .object({ domains: domains.optional(), unregisterDomains: domains.optional() })
    .refine((change) => change.domains || change.unregisterDomains, {
      message: 'must name domains or unregisterDomains',
    }),
});

export const walletOnboardingIdInput = z.object({ onboardingId: positiveId });

/** The merchant's registered domains, as GET and PUT answer them. */
export const walletOnboardingBody = z.object({
  walletType: z.literal('APPLE_PAY'),
  applePay: z.object({ domains: z.array(z.string()) }),
});
export type WalletOnboarding = z.output<typeof walletOnboardingBody>;

/**
 * POST /wallets: an Apple Pay payment session for the shopper's browser. `validationUrl` is the
 * `validationURL` of Safari's `onvalidatemerchant` event; `domainName` one of the merchant's registered domains.
 */
export const createApplePaySessionInput = z.object({
  walletType: applePayType,
  validationUrl: text(2048),
  domainName: domain,
  displayName: text(64).optional(),
});

/** The session: Apple's merchant session object, base-64 encoded, for `completeMerchantValidation`. */
export const applePaySessionBody = z.object({
  walletType: z.literal('APPLE_PAY'),
  walletToken: z.string(),
});
export type ApplePaySession = z.output<typeof applePaySessionBody>;
