import type { AppRouter } from '@paywire/core';
import { createTRPCClient, httpLink } from '@trpc/client';
import { keepAliveFetch } from './core-transport.ts';

export type CoreClient = ReturnType<typeof createCoreClient>;

/** Name of the header that carries the authenticated merchant to core (see core's server.ts). */
const merchantHeader = 'x-paywire-merchant';

/**
 * One client for all requests. httpLink, not the batch link: a batch carries one header set, and calls of
 * different merchants must never share one. Connections to core are pooled and kept alive.
 */
export function createCoreClient(url: string) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url,
        fetch: keepAliveFetch(256) as unknown as typeof fetch,
        headers: ({ op }) => {
          const merchantId = op.context.merchantId;
          return typeof merchantId === 'number' ? { [merchantHeader]: String(merchantId) } : {};
        },
      }),
    ],
  });
}

/** Call options that act for one merchant. */
export const asMerchant = (merchantId: number) => ({ context: { merchantId } });
