import {
  minorToAmount,
  type CardTransaction as PublicTransaction,
  type transactionIdInput,
  transactionIdOf,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { inOrder } from '../db/json-order.ts';
import { transactionNotFound } from '../errors.ts';
import { shownSplitOf } from '../marketplace/splits.ts';
import { type CardFacts, cardResponse } from '../shoppers/service.ts';
import { walletCreditCard, walletResponse } from '../wallets/service.ts';
import { CardTransaction } from './entities.ts';
import type { CardView } from './events.ts';
import type { SaleColumns } from './sale-writer.ts';

const cardHolderFields = ['firstName', 'lastName', 'zip', 'email', 'country'] as const;

/** What a transaction's public state is made of: a loaded entity, or a sale just written. */
export type TransactionState = SaleColumns &
  Pick<CardTransaction, 'id'> & { shopper: { id: number }; card: CardFacts | null | undefined };

/** The card a transaction paid with: a vaulted card, or the card a wallet token stood for. */
export function cardOf(transaction: Pick<TransactionState, 'card' | 'wallet'>): CardView {
  if (transaction.card) return transaction.card;
  const wallet = transaction.wallet as NonNullable<CardTransaction['wallet']>; // one of the two (0006 check)
  return {
    ...wallet,
    expirationMonth: wallet.dpanExpirationMonth,
    expirationYear: wallet.dpanExpirationYear,
  };
}

/** The public state of a transaction: what it is now, and the amount that state is about. */
export function present(transaction: TransactionState): PublicTransaction {
  const { status, type, processing } = transaction;
  const state =
    status === 'REVERSED'
      ? 'AUTH_REVERSAL'
      : status === 'CAPTURED' && type === 'AUTH_ONLY'
        ? 'CAPTURE'
        : type;
  const amountMinor = state === 'CAPTURE' ? transaction.capturedMinor : transaction.amountMinor;
  return {
    cardTransactionType: state,
    transactionId: String(transaction.id),
    ...(transaction.merchantTransactionId
      ? { merchantTransactionId: transaction.merchantTransactionId }
      : {}),
    recurringTransaction: 'ECOMMERCE',
    ...(transaction.softDescriptor ? { softDescriptor: transaction.softDescriptor } : {}),
    amount: minorToAmount(amountMinor, transaction.currency),
    currency: transaction.currency,
    ...(transaction.cardHolder ? { cardHolderInfo: inOrder(transaction.cardHolder, cardHolderFields) } : {}),
    vaultedShopperId: transaction.shopper.id,
    ...(transaction.wallet
      ? { creditCard: walletCreditCard(transaction.wallet), wallet: walletResponse(transaction.wallet) }
      : { creditCard: cardResponse(transaction.card as CardFacts) }),
    processingInfo: {
      processingStatus: 'success',
      cvvResponseCode: processing.cvvResponseCode,
      avsResponseCodeZip: processing.avsResponseCodeZip,
      avsResponseCodeAddress: processing.avsResponseCodeAddress,
      avsResponseCodeName: processing.avsResponseCodeName,
      authorizationCode: processing.authorizationCode,
      networkTransactionId: processing.networkTransactionId,
    },
    ...(transaction.threeDSecure
      ? { threeDSecure: { authenticationResult: transaction.threeDSecure.authenticationResult } }
      : {}),
    ...(transaction.transactionMetaData ? { transactionMetaData: transaction.transactionMetaData } : {}),
    ...(transaction.level3Data ? { level3Data: transaction.level3Data } : {}),
    ...(transaction.transactionFraudInfo ? { transactionFraudInfo: transaction.transactionFraudInfo } : {}),
    ...(transaction.fraudResultInfo ? { fraudResultInfo: transaction.fraudResultInfo } : {}),
  };
}

export async function getTransaction(
  ctx: MerchantContext,
  by: z.output<typeof transactionIdInput>,
): Promise<PublicTransaction> {
  const id = by.transactionId === undefined ? undefined : transactionIdOf(by.transactionId);
  const where = id === undefined ? { merchantTransactionId: by.merchantTransactionId } : { id };
  const transaction =
    id !== null &&
    (await ctx.em.findOne(
      CardTransaction,
      { ...where, merchantId: ctx.merchantId },
      { populate: ['card', 'shopper'] },
    ));
  if (!transaction) throw transactionNotFound(by);
  return { ...present(transaction), ...(await shownSplitOf(ctx.em, ctx.merchantId, transaction)) };
}
