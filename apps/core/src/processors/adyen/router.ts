import { adyenNotificationInput } from '@paywire/contracts';
import { publicProcedure, router } from '../../trpc.ts';
import { receiveAdyenNotification } from './notifications.ts';

/** Adyen's calls to Paywire, relayed by the facade: they act for no merchant until the account names one. */
export const adyenRouter = router({
  notification: publicProcedure
    .input(adyenNotificationInput)
    .mutation(({ ctx, input }) => receiveAdyenNotification(ctx, ctx.log, input)),
});
