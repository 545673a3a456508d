import { deliveryIdInput, deliveryLogQuery, notificationConfigInput } from '@paywire/contracts';
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
  /** The delivery log, newest first, filtered by state, event and destination, a page at a time. */
  deliveries: merchantProcedure.input(deliveryLogQuery).query(({ ctx, input }) => listDeliveries(ctx, input)),
  redeliver: merchantProcedure
    .input(deliveryIdInput)
    .mutation(({ ctx, input }) => redeliver(ctx, input.deliveryId)),
});
