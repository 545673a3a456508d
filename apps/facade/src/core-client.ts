import { callOptions, type PaywireClient } from '@paywire/client';
import type { MerchantState } from './routes/state.ts';

export type CoreClient = PaywireClient;

/** Call options that act for the request's merchant, with its idempotency key if it sent one. */
export const asMerchant = ({ merchantId, idempotency }: MerchantState) =>
  callOptions({ merchantId, idempotencyKey: idempotency?.key, fingerprint: idempotency?.fingerprint });
