import { callOptions, type PaywireClient } from '@paywire/client';
import type { RequestState } from './http/observe.ts';
import type { MerchantState } from './routes/state.ts';

export type CoreClient = PaywireClient;

/** Call options that act for the request's merchant, with its idempotency key if it sent one. */
export const asMerchant = ({ merchantId, idempotency, requestId, clientAddress }: MerchantState) =>
  callOptions({
    merchantId,
    idempotencyKey: idempotency?.key,
    fingerprint: idempotency?.fingerprint,
    requestId,
    clientAddress,
  });

/** Call options for a request that acts for no merchant: only its id travels. */
export const forRequest = ({ requestId }: RequestState) => callOptions({ requestId });
