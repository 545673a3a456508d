import {
  type IpnDestination,
  type NotificationConfig,
  type notificationConfigInput,
  sendFlags,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { IpnConfig } from './entities.ts';

const none: NotificationConfig = {
  ipnDestinations: [],
  ensureNotificationReceipt: false,
  receiveAffiliateNotifications: false,
};

/** Every flag present, in the interface's order, whatever order the database keeps. */
function present(config: IpnConfig): NotificationConfig {
  return {
    ipnDestinations: config.destinations.map(
      (destination) =>
        ({
          ipnUrl: destination.ipnUrl,
          ...Object.fromEntries(sendFlags.map((flag) => [flag, destination.enabled.includes(flag)])),
        }) as IpnDestination,
    ),
    ensureNotificationReceipt: config.ensureNotificationReceipt,
    receiveAffiliateNotifications: config.receiveAffiliateNotifications,
  };
}

export async function getConfig(ctx: MerchantContext): Promise<NotificationConfig> {
  const config = await ctx.em.findOne(IpnConfig, { merchantId: ctx.merchantId });
  return config ? present(config) : none;
}

/** Replaces the whole configuration: a flag absent from the request is off. */
export async function replaceConfig(
  ctx: MerchantContext,
  input: z.output<typeof notificationConfigInput>,
): Promise<NotificationConfig> {
  const fields = {
    destinations: input.ipnDestinations.map((destination) => ({
      ipnUrl: destination.ipnUrl,
      enabled: sendFlags.filter((flag) => destination[flag] === true),
    })),
    ensureNotificationReceipt: input.ensureNotificationReceipt,
    receiveAffiliateNotifications: input.receiveAffiliateNotifications,
  };
  const config = await ctx.em.upsert(IpnConfig, { merchantId: ctx.merchantId, ...fields });
  return present(config);
}

export async function deleteConfig(ctx: MerchantContext): Promise<void> {
  await ctx.em.nativeDelete(IpnConfig, { merchantId: ctx.merchantId });
}
