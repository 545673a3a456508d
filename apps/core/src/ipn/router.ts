import { notificationConfigInput } from '@paywire/contracts';
import { z } from 'zod';
import { merchantProcedure, router } from '../trpc.ts';
import { deleteConfig, getConfig, replaceConfig } from './config.ts';
import { listDeliveries, redeliver } from './log.ts';
import { ipnSecret, rotateIpnSecret } from './secret.ts';

export const ipnRouter = router({
  getConfig: merchantProcedure.query(({ ctx }) => getConfig(ctx)),
  replaceConfig: merchantProcedure
    .input(notificationConfigInput)
    .mutation(({ ctx, input }) => replaceConfig(ctx, input)),
  deleteConfig: merchantProcedure.mutation(({ ctx }) => deleteConfig(ctx)),
  /** The secret that signs deliveries (webhook-signature) and makes their authKey. */
  secret: merchantProcedure.query(async ({ ctx }) => ({ secret: await ipnSecret(ctx.em, ctx.merchantId) })),
  rotateSecret: merchantProcedure.mutation(async ({ ctx }) => ({
    secret: await rotateIpnSecret(ctx.em, ctx.merchantId),
  })),
  deliveries: merchantProcedure
    .input(
      z.object({
        limit: z.number().int().min(1).max(500).default(100),
        beforeId: z.number().int().optional(),
      }),
    )
    .query(({ ctx, input }) => listDeliveries(ctx, input)),
  redeliver: merchantProcedure
    .input(z.object({ deliveryId: z.number().int().positive() }))
    .mutation(({ ctx, input }) => redeliver(ctx, input.deliveryId)),
});
