import {
  type AuditAction,
  deliveryIdInput,
  deliveryLogQuery,
  notificationConfigInput,
} from '@paywire/contracts';
import { type AuditEntry, audited } from '../security/audit/trail.ts';
import { merchantProcedure, router, secretReadingProcedure } from '../trpc.ts';
import { deleteConfig, getConfig, replaceConfig } from './config.ts';
import { listDeliveries, redeliver } from './log.ts';
import { ipnSecret, rotateIpnSecret } from './secret.ts';

/** Every change to the merchant's IPN configuration and secret is audited, and every read of the secret. */
const ipnEntry = (merchantId: number, action: AuditAction): AuditEntry => ({
  merchantId,
  action,
  object: `merchant:${merchantId}`,
  outcome: 'success',
});

export const ipnRouter = router({
  getConfig: merchantProcedure.query(({ ctx }) => getConfig(ctx)),
  replaceConfig: merchantProcedure
    .input(notificationConfigInput)
    .mutation(({ ctx, input }) =>
      audited(ctx, ipnEntry(ctx.merchantId, 'ipn-config.replace'), (em) =>
        replaceConfig({ ...ctx, em }, input),
      ),
    ),
  deleteConfig: merchantProcedure.mutation(({ ctx }) =>
    audited(ctx, ipnEntry(ctx.merchantId, 'ipn-config.delete'), (em) => deleteConfig({ ...ctx, em })),
  ),
  /** The secret that signs deliveries (webhook-signature) and makes their authKey. */
  secret: secretReadingProcedure.query(({ ctx }) =>
    audited(ctx, ipnEntry(ctx.merchantId, 'ipn-secret.read'), async (em) => ({
      secret: await ipnSecret(em, ctx.vault, ctx.merchantId),
    })),
  ),
  /** A new secret; the previous one signs beside it for a day (docs/security.md, IPN secrets). */
  rotateSecret: merchantProcedure.mutation(({ ctx }) =>
    audited(ctx, ipnEntry(ctx.merchantId, 'ipn-secret.rotate'), async (em) => ({
      secret: await rotateIpnSecret(em, ctx.vault, ctx.merchantId),
    })),
  ),
  /** The delivery log, newest first, filtered by state, event and destination, a page at a time. */
  deliveries: merchantProcedure.input(deliveryLogQuery).query(({ ctx, input }) => listDeliveries(ctx, input)),
  redeliver: merchantProcedure
    .input(deliveryIdInput)
    .mutation(({ ctx, input }) => redeliver(ctx, input.deliveryId)),
});
