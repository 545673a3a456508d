import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, type EcpTransactionInput, maskedNumber } from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { claimDebitTransactionId, type DebitRequest, openDebit } from '../sepa/debits.ts';
import { SepaMandate } from '../sepa/entities.ts';
import type { SepaDebitView } from '../sepa/presentation.ts';
import type { Shopper } from '../shoppers/entities.ts';
import { achMandate } from './accounts.ts';

/**
 * ECP/ACH debits (docs/ach.md): a shopper's US account kept as a mandate of scheme ACH, debited as SEPA
 * debits are (sepa/debits.ts openDebit), settled in NACHA files by the same settlement (sepa/settlement.ts).
 */

/**
 * The stored ACH account a returning shopper pays from when the request sends no numbers: the one whose
 * masked number (`publicAccountNumber`) the request gives, else the newest. `property` is the account's
 * place in the request, named by the error when there is none.
 */
async function storedAchMandate(
  ctx: MerchantContext,
  em: EntityManager,
  shopper: Shopper,
  publicAccountNumber: string | undefined,
  property: string,
): Promise<SepaMandate> {
  const mandates = await em.find(
    SepaMandate,
    { shopper, merchantId: ctx.merchantId, scheme: 'ACH' },
    { orderBy: { id: 'desc' } },
  );
  const mandate = mandates.find(
    (candidate) =>
      publicAccountNumber === undefined || maskedNumber(candidate.ibanLastFour) === publicAccountNumber,
  );
  if (!mandate) {
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      `${property}.accountNumber: is required: shopper ${shopper.id} has no stored ECP account${
        publicAccountNumber === undefined ? '' : ` ${publicAccountNumber}`
      }`,
      { name: `${property}.accountNumber` },
    );
  }
  return mandate;
}

/** The shopper's mandate for the account sent (made on first use), or for the stored account named. */
export function achMandateOf(
  ctx: MerchantContext,
  em: EntityManager,
  shopper: Shopper,
  account: EcpTransactionInput,
  property: string,
  now: Date,
): Promise<SepaMandate> {
  const { accountNumber, routingNumber, accountType } = account;
  return accountNumber && routingNumber && accountType
    ? achMandate(ctx, em, shopper, { accountNumber, routingNumber, accountType }, now)
    : storedAchMandate(ctx, em, shopper, account.publicAccountNumber, property);
}

/** Opens a pending ACH debit of the account sent, or of the shopper's stored one. */
export async function openAchDebit(
  ctx: MerchantContext,
  em: EntityManager,
  account: EcpTransactionInput,
  request: DebitRequest & { currency: 'USD' },
  now: Date,
): Promise<SepaDebitView> {
  await claimDebitTransactionId(ctx, em, request.merchantTransactionId);
  const mandate = await achMandateOf(ctx, em, request.shopper, account, 'ecpTransaction', now);
  return openDebit(ctx, em, mandate, request, now);
}
