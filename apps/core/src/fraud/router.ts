import { fraudSettingsInput } from '@paywire/contracts';
import { audited } from '../security/audit/trail.ts';
import { merchantProcedure, router } from '../trpc.ts';
import { getFraudSettings, replaceFraudSettings } from './service.ts';

/** The merchant's fraud rules (docs/fraud.md); every replacement is audited. */
export const fraudRouter = router({
  getSettings: merchantProcedure.query(({ ctx }) => getFraudSettings(ctx)),
  replaceSettings: merchantProcedure.input(fraudSettingsInput).mutation(({ ctx, input }) =>
    audited(
      ctx,
      {
        merchantId: ctx.merchantId,
        action: 'fraud-settings.replace',
        object: `merchant:${ctx.merchantId}`,
        outcome: 'success',
      },
      (em) => replaceFraudSettings(ctx, em, input),
    ),
  ),
});
