import { configureWalletKeysInput } from '@paywire/contracts';
import { z } from 'zod';
import { adminProcedure, router } from '../trpc.ts';
import { configureWalletKeys, walletKeysView } from './keys.ts';

/** Merchants' wallet decryption keys, for admin callers: set (sealed by the card vault) and shown without keys. */
export const walletsRouter = router({
  configureKeys: adminProcedure
    .input(configureWalletKeysInput)
    .mutation(({ ctx, input }) => configureWalletKeys(ctx.em, ctx.vault, input, ctx.origin)),
  keys: adminProcedure
    .input(z.object({ merchantId: z.number().int().positive().max(999_999_999) }))
    .query(({ ctx, input }) => walletKeysView(ctx.em, ctx.vault, input.merchantId)),
});
