import {
  type ApplePaySession,
  type createApplePaySessionInput,
  DomainError,
  type onboardWalletInput,
  type updateWalletOnboardingInput,
  type WalletOnboarding,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { recordChange } from '../security/audit/trail.ts';
import {
  applePayDomainRegistered,
  changeApplePayDomains,
  registerApplePayDomains,
  selectApplePayOnboarding,
} from './queries.ts';

interface OnboardingRow {
  id: string;
  domains: string[];
}

const present = (row: OnboardingRow): WalletOnboarding => ({
  walletType: 'APPLE_PAY',
  applePay: { domains: row.domains },
});

const notOnboarded = (description: string) => new DomainError('WALLET_ONBOARDING_NOT_FOUND', description);

/** Writes a change of the merchant's domains with its audit event; its row, or null when there is none. */
function changeDomains(
  ctx: MerchantContext,
  statement: string,
  parameters: unknown[],
): Promise<OnboardingRow | null> {
  return inTransaction(ctx.em, async (em) => {
    const [row] = await executeParameterized<OnboardingRow>(em, statement, [ctx.merchantId, ...parameters]);
    if (row) await recordChange(ctx, em, 'wallet-onboarding.update', `wallet-onboarding:${row.id}`);
    return row ?? null;
  });
}

/**
 * Onboard Apple Pay: the first call makes the merchant's onboarding (its id is what the reference answers in
 * Location), each later one adds domains to it.
 */
export async function onboardApplePay(
  ctx: MerchantContext,
  input: z.output<typeof onboardWalletInput>,
): Promise<{ onboardingId: string }> {
  const row = await changeDomains(ctx, registerApplePayDomains, [input.applePay.domains]);
  return { onboardingId: String(row?.id) };
}

/** Update Apple Pay onboarding: registers `domains`, unregisters `unregisterDomains`, answers what is left. */
export async function updateApplePayOnboarding(
  ctx: MerchantContext,
  input: z.output<typeof updateWalletOnboardingInput>,
): Promise<WalletOnboarding> {
  const { domains = [], unregisterDomains = [] } = input.applePay;
  const row = await changeDomains(ctx, changeApplePayDomains, [domains, unregisterDomains]);
  if (!row) throw notOnboarded('Apple Pay is not onboarded yet: POST /wallets/onboarding first');
  return present(row);
}

/** Retrieve Apple Pay onboarding information by its id. */
export async function applePayOnboarding(
  ctx: MerchantContext,
  onboardingId: number,
): Promise<WalletOnboarding> {
  const [row] = await executeParameterized<OnboardingRow>(ctx.em, selectApplePayOnboarding, [
    onboardingId,
    ctx.merchantId,
  ]);
  if (!row) throw notOnboarded(`onboarding ${onboardingId} was not found`);
  return present(row);
}

/**
 * Create Apple Pay session (the reference's Create Wallet): for a domain the merchant registered, asks
 * Apple's gateway for a merchant session (wallets/apple-pay-gateway.ts) with no transaction open, and
 * answers it base-64 encoded as the walletToken.
 */
export async function createApplePaySession(
  ctx: MerchantContext,
  input: z.output<typeof createApplePaySessionInput>,
): Promise<ApplePaySession> {
  const registered = await executeParameterized(ctx.em, applePayDomainRegistered, [
    ctx.merchantId,
    input.domainName,
  ]);
  if (registered.length === 0)
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      'domainName: is not a domain registered for Apple Pay (POST /wallets/onboarding)',
      { name: 'domainName', messageValue: input.domainName },
    );
  const session = await ctx.applePay.startSession({
    validationUrl: input.validationUrl,
    domainName: input.domainName,
    displayName: input.displayName ?? input.domainName,
  });
  return { walletType: 'APPLE_PAY', walletToken: Buffer.from(session, 'utf8').toString('base64') };
}
