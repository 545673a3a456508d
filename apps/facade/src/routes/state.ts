import type { IdempotentRequest } from '@paywire/contracts';

/** What the auth and idempotency middleware leave for the routes behind them. */
export interface MerchantState {
  merchantId: number;
  idempotency?: IdempotentRequest;
}
