import { type IdempotentRequest, internalHeaders } from '@paywire/contracts';
import type { AppRouter } from '@paywire/core';
import { createTRPCClient, httpLink } from '@trpc/client';
import { keepAliveFetch } from './core-transport.ts';
import type { MerchantState } from './routes/state.ts';

export type CoreClient = ReturnType<typeof createCoreClient>;

interface CallContext {
  merchantId?: number;
  idempotency?: IdempotentRequest;
}

/** Only what is set: a header with an undefined value would travel as the text "undefined". */
function headersFor({ merchantId, idempotency }: CallContext): Record<string, string> {
  const headers: Record<string, string> = {};
  if (typeof merchantId === 'number') headers[internalHeaders.merchant] = String(merchantId);
  if (idempotency) {
    headers[internalHeaders.idempotencyKey] = idempotency.key;
    if (idempotency.fingerprint) headers[internalHeaders.fingerprint] = idempotency.fingerprint;
  }
  return headers;
}

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
        headers: ({ op }) => headersFor(op.context as CallContext),
      }),
    ],
  });
}

/** Call options that act for the request's merchant, with its idempotency key if it sent one. */
export const asMerchant = ({ merchantId, idempotency }: MerchantState) => ({
  context: idempotency ? { merchantId, idempotency } : { merchantId },
});
