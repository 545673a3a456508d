import { DomainError, type SandboxClock } from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { kickAccountUpdater, kickRenewals, kickSettlement } from '../jobs/queues.ts';
import { merchantNow } from './clock.ts';
import { advanceOffset } from './queries.ts';

function sandboxOnly(ctx: MerchantContext): void {
  if (ctx.mode !== 'sandbox')
    throw new DomainError('RESOURCE_NOT_FOUND', 'the sandbox clock exists in sandbox mode only');
}

async function read(ctx: MerchantContext): Promise<SandboxClock> {
  const now = await merchantNow(ctx.em, ctx.merchantId, ctx.mode);
  return { now: now.toISOString(), offsetSeconds: Math.round((now.getTime() - Date.now()) / 1000) };
}

export async function getClock(ctx: MerchantContext): Promise<SandboxClock> {
  sandboxOnly(ctx);
  return read(ctx);
}

/** Moves the merchant's clock forward; time never runs backwards for a merchant. */
export async function advanceClock(ctx: MerchantContext, seconds: number): Promise<SandboxClock> {
  sandboxOnly(ctx);
  await executeParameterized(ctx.em, advanceOffset, [seconds, ctx.merchantId]);
  // SEPA debits, subscription renewals and account updater answers now due run in seconds, not at the next minute
  await kickSettlement(ctx.jobs, ctx.em);
  await kickRenewals(ctx.jobs, ctx.em);
  await kickAccountUpdater(ctx.jobs, ctx.em);
  return read(ctx);
}
