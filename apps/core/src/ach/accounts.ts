import type { EntityManager } from '@mikro-orm/postgresql';
import type { EcpAccountType } from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import type { SepaMandate } from '../sepa/entities.ts';
import { accountMandate } from '../sepa/mandates.ts';
import type { Shopper } from '../shoppers/entities.ts';

export interface AchAccount {
  accountNumber: string;
  routingNumber: string;
  accountType: EcpAccountType;
}

/** The shopper's ACH mandate for the account, made on first use (one per routing and account number). */
export function achMandate(
  ctx: MerchantContext,
  em: EntityManager,
  shopper: Shopper,
  account: AchAccount,
  now: Date,
): Promise<SepaMandate> {
  return accountMandate(
    ctx,
    em,
    shopper,
    {
      scheme: 'ACH',
      number: account.accountNumber,
      routingNumber: account.routingNumber,
      accountType: account.accountType,
    },
    now,
  );
}
