import type { IdempotentRequest } from '@paywire/contracts';
import type { RequestState } from '../http/observe.ts';

/** What the auth and idempotency middleware leave for the routes behind them. */
export interface MerchantState extends RequestState {
  merchantId: number;
  /** The address the merchant's request came from (the auth middleware's), for core's audit trail. */
  clientAddress: string;
  idempotency?: IdempotentRequest;
}
