import { amountInMinorUnits, type createSubscriptionInput, type SubscriptionBody } from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { resolveSplitTerms } from '../marketplace/splits.ts';
import { openSubscription } from './opening.ts';
import { requireDebitTerms, sourceScheme } from './payment-source.ts';
import { findPlan, requireActivePlan } from './plans.ts';
import { presentCharge, presentSubscription } from './present.ts';
import { recurringAmountOf } from './terms.ts';

type CreateSubscription = z.output<typeof createSubscriptionInput>;

export async function createSubscription(
  ctx: MerchantContext,
  input: CreateSubscription,
): Promise<SubscriptionBody> {
  const plan = await findPlan(ctx.em, ctx.merchantId, input.planId);
  requireActivePlan(plan, 'planId');
  const { currency } = plan;
  const scheme = sourceScheme(input.paymentSource);
  if (scheme) requireDebitTerms(scheme, { currency, frequency: plan.chargeFrequency });
  const minor = (amount: string | undefined, property: string) =>
    amount === undefined ? undefined : amountInMinorUnits(amount, currency, property);
  const overrideRecurringChargeMinor = minor(
    input.overrideRecurringChargeAmount,
    'overrideRecurringChargeAmount',
  );
  const overrideInitialChargeMinor = minor(input.overrideInitialChargeAmount, 'overrideInitialChargeAmount');
  // 0 is ignored, as the reference says: the plan's trial applies
  const overrideTrialPeriodDays = input.overrideTrialPeriodDays || undefined;
  const quantity = input.quantity ?? 1;
  const trialDays = overrideTrialPeriodDays ?? plan.trialPeriodDays ?? 0;
  const initialMinor = overrideInitialChargeMinor ?? plan.initialChargeMinor;
  const period = recurringAmountOf({ plan, overrideRecurringChargeMinor, quantity });
  const firstChargeMinor = trialDays > 0 ? 0 : (initialMinor ?? period);
  // Checked against the first charge and the renewals' amount: every charge then splits as asked.
  const split = await resolveSplitTerms(ctx.em, ctx.merchantId, input, {
    amountsMinor: [firstChargeMinor, period],
    currency,
  });
  return openSubscription(
    ctx,
    {
      plan,
      currency,
      vaultedShopperId: input.vaultedShopperId,
      payerInfo: input.payerInfo,
      paymentSource: input.paymentSource,
      quantity,
      softDescriptor: input.softDescriptor,
      descriptorPhoneNumber: input.descriptorPhoneNumber,
      overrideRecurringChargeMinor,
      overrideTrialPeriodDays,
      overrideInitialChargeMinor,
      firstChargeMinor,
      trialDays,
      merchantTransactionId: input.merchantTransactionId,
      split,
    },
    async (_em, subscription, charge) =>
      presentSubscription(subscription, charge ? presentCharge(subscription, charge) : undefined),
  );
}
