import type { EntityManager } from '@mikro-orm/postgresql';
import type { FraudSettings, FraudSettingsInput } from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { callFacts } from '../merchants/facts.ts';
import { replaceSettings } from './queries.ts';
import { noRules, rulesOf, settingsOf } from './rules.ts';

/** The merchant's fraud rules; a merchant that never set any has every rule off. */
export async function getFraudSettings(ctx: MerchantContext): Promise<FraudSettings> {
  return settingsOf((await callFacts(ctx, ctx.em)).fraudRules ?? noRules);
}

/** Replaces the whole rule set: a rule the request leaves out is off. */
export async function replaceFraudSettings(
  ctx: MerchantContext,
  em: EntityManager,
  input: FraudSettingsInput,
): Promise<FraudSettings> {
  const rules = rulesOf(input);
  await executeParameterized(em, replaceSettings, [ctx.merchantId, JSON.stringify(rules)]);
  return settingsOf(rules);
}
