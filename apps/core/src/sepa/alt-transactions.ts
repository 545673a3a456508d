import {
  type AltTransaction,
  type altTransactionIdInput,
  type createAltTransactionInput,
  toMinorUnits,
} from '@paywire/contracts';
import type { z } from 'zod';
import { openAchDebit } from '../ach/service.ts';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { transactionNotFound } from '../errors.ts';
import { presentSplit, recordSplit, resolveSplit, shownSplitOf } from '../marketplace/splits.ts';
import { findShopper, newShopper } from '../shoppers/service.ts';
import { findSepaDebit, openSepaDebit } from './debits.ts';
import { storedIban } from './mandates.ts';
import { presentAltTransaction } from './presentation.ts';

/**
 * POST /alt-transactions: a new shopper for the payer, or the vaulted shopper the request names, paying by
 * ECP/ACH (`ecpTransaction`, docs/ach.md) or SEPA direct debit, from the account sent or, without one, from
 * the shopper's stored account of that scheme (its mandate is reused). A split between vendors is checked as
 * a card sale's, before anything is written, and recorded with the debit (docs/marketplace.md).
 */
export async function createAltTransaction(
  ctx: MerchantContext,
  input: z.output<typeof createAltTransactionInput>,
): Promise<AltTransaction> {
  return inTransaction(ctx.em, async (em) => {
    const amountMinor = toMinorUnits(input.amount, input.currency);
    const split = await resolveSplit(em, ctx.merchantId, input, { amountMinor, currency: input.currency });
    const now = await callNow(ctx, em);
    const shopper =
      input.vaultedShopperId === undefined
        ? newShopper(em, ctx.merchantId, input.payerInfo ?? {})
        : await findShopper(em, ctx.merchantId, input.vaultedShopperId);
    const request = {
      shopper,
      payer: input.payerInfo ?? { firstName: shopper.firstName ?? '', lastName: shopper.lastName ?? '' },
      amountMinor,
      ...(input.merchantTransactionId ? { merchantTransactionId: input.merchantTransactionId } : {}),
      ...(input.transactionMetaData ? { transactionMetaData: input.transactionMetaData } : {}),
    };
    const debit = input.ecpTransaction
      ? await openAchDebit(ctx, em, input.ecpTransaction, { ...request, currency: 'USD' }, now)
      : await openSepaDebit(
          ctx,
          em,
          {
            ...request,
            iban:
              input.sepaDirectDebitTransaction?.iban ??
              (await storedIban(ctx, em, shopper, input.sepaDirectDebitTransaction)),
            currency: 'EUR', // the contract allows only EUR without ecpTransaction
          },
          now,
        );
    if (!split) return presentAltTransaction(debit);
    await recordSplit(em, ctx.merchantId, Number(debit.transactionId), split);
    return { ...presentAltTransaction(debit), ...presentSplit(split, debit.currency) };
  });
}

export async function getAltTransaction(
  ctx: MerchantContext,
  input: z.output<typeof altTransactionIdInput>,
): Promise<AltTransaction> {
  const debit = await findSepaDebit(ctx.em, ctx.merchantId, input.transactionId);
  if (!debit) throw transactionNotFound(input);
  return {
    ...presentAltTransaction(debit),
    ...(await shownSplitOf(ctx.em, ctx.merchantId, {
      id: Number(debit.transactionId),
      currency: debit.currency,
    })),
  };
}
