import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import {
  amountInMinorUnits,
  brandOf,
  type CardBrand,
  type createTransactionInput,
  DomainError,
  minorToAmount,
  type Refund as PublicRefund,
  type CardTransaction as PublicTransaction,
  type refundInput,
  toMinorUnits,
  type transactionIdInput,
  transactionIdOf,
  type updateTransactionInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inOrder } from '../db/json-order.ts';
import { inTransaction } from '../db/transaction.ts';
import { transactionNotFound } from '../errors.ts';
import { isEventWanted, ReportedFailure, recordEvent, recordReportedFailure } from '../ipn/events.ts';
import type { Shopper } from '../shoppers/entities.ts';
import {
  type CardFacts,
  type CardMaterial,
  cardResponse,
  defaultCard,
  findShopper,
  pickFields,
  vaultable,
} from '../shoppers/service.ts';
import { consumeToken } from '../tokens/service.ts';
import {
  resolveWalletToken,
  walletCard,
  walletCardHolder,
  walletCreditCard,
  walletResponse,
  walletShopperFields,
} from '../wallets/service.ts';
import type { DecodedWalletToken } from '../wallets/token.ts';
import type { Approval, DeclineReason } from './acquirer.ts';
import { CardTransaction, Refund, type ThreeDSecureRecord } from './entities.ts';
import { CardDeclined, type CardView, cardEventParameters } from './events.ts';
import { refundAnswer, refundColumns } from './refund-answer.ts';
import { insertSale, type SaleCard, type SaleColumns, type SaleShopper } from './sale-writer.ts';

type CreateTransaction = z.output<typeof createTransactionInput>;
type UpdateTransaction = z.output<typeof updateTransactionInput>;
type RefundRequest = z.output<typeof refundInput>;

const reversalWindowSeconds = 8 * 86400;

const declineDescriptions: Record<DeclineReason, string> = {
  DO_NOT_HONOR: 'the card issuer declined the transaction',
  INSUFFICIENT_FUNDS: 'the card has insufficient funds',
  EXPIRED_CARD: 'the card has expired',
  CVV_ERROR: 'the security code does not match',
  CARD_LOST_OR_STOLEN: 'the card is reported lost or stolen',
  CALL_ISSUER: 'the card issuer asks to be called',
};

const cardHolderFields = ['firstName', 'lastName', 'zip', 'email', 'country'] as const;

/** What a transaction's public state is made of: a loaded entity, or a sale just written. */
type TransactionState = SaleColumns &
  Pick<CardTransaction, 'id'> & { shopper: { id: number }; card: CardFacts | null | undefined };

/** The card a transaction paid with: a vaulted card, or the card a wallet token stood for. */
function cardOf(transaction: Pick<TransactionState, 'card' | 'wallet'>): CardView {
  if (transaction.card) return transaction.card;
  const wallet = transaction.wallet as NonNullable<CardTransaction['wallet']>; // one of the two (0006 check)
  return {
    ...wallet,
    expirationMonth: wallet.dpanExpirationMonth,
    expirationYear: wallet.dpanExpirationYear,
  };
}

/** The public state of a transaction: what it is now, and the amount that state is about. */
function present(transaction: TransactionState): PublicTransaction {
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
  };
}

/** What is kept of the 3-D Secure input: the facts and the result, never the CAVV or XID cryptograms. */
function threeDSecureRecord(
  input: CreateTransaction['threeDSecure'],
  result: Approval['threeDSecure'],
): ThreeDSecureRecord | null {
  if (!input || !result) return null;
  const { threeDSecureReferenceId, eci, dsTransactionId, threeDSecureVersion } = input;
  return {
    authenticationResult: result.authenticationResult,
    ...(threeDSecureReferenceId ? { threeDSecureReferenceId } : {}),
    ...(eci ? { eci } : {}),
    ...(dsTransactionId ? { dsTransactionId } : {}),
    ...(threeDSecureVersion ? { threeDSecureVersion } : {}),
  };
}

type PaymentSource = { known: Shopper | null; shopper: SaleShopper } & (
  | { wallet: DecodedWalletToken; card: null; shown: CardView; material?: undefined }
  | { wallet?: undefined; card: SaleCard; shown: CardFacts; material: CardMaterial }
);

/**
 * What pays: a card (given, from a token, or the shopper's vaulted default) or a wallet token, and who pays.
 * A first-time payer's shopper and a newly sent card are only described here: the sale writes them with
 * itself. A wallet token is a single-use cryptogram: it is charged once and not vaulted.
 */
async function paymentSource(
  ctx: MerchantContext,
  em: EntityManager,
  input: CreateTransaction,
  now: Date,
): Promise<PaymentSource> {
  const wallet = input.wallet && resolveWalletToken(ctx.mode, input.wallet);
  const known = input.vaultedShopperId ? await findShopper(em, ctx.merchantId, input.vaultedShopperId) : null;
  const shopper: SaleShopper = known
    ? { id: known.id }
    : {
        columns: pickFields({
          ...(wallet ? walletShopperFields(wallet) : {}),
          ...input.cardHolderInfo,
          softDescriptor: input.softDescriptor,
        }),
      };
  const payer = { known, shopper };
  if (wallet) return { ...payer, wallet, card: null, shown: walletCard(ctx.acquirer, wallet) };
  let material: CardMaterial | undefined;
  if (input.creditCard) material = { number: input.creditCard.cardNumber, ...input.creditCard };
  else if (input.pfToken) material = await consumeToken(ctx, em, input.pfToken, now);
  if (material) {
    const billing = input.cardHolderInfo && {
      firstName: input.cardHolderInfo.firstName,
      lastName: input.cardHolderInfo.lastName,
      zip: input.cardHolderInfo.zip,
    };
    const vault = vaultable(ctx, material, billing);
    return { ...payer, material, card: { vault }, shown: vault };
  }
  if (!known) throw new Error('contracts require card data, a token, a wallet or a vaulted shopper');
  const stored = await defaultCard(em, known);
  const number = ctx.vault.open(stored.sealedNumber);
  return { ...payer, material: { ...stored, number }, card: { id: stored.id }, shown: stored };
}

/**
 * AUTH_CAPTURE and AUTH_ONLY; a decline writes nothing. A sale is one statement, atomic by itself: only a
 * token to spend or an event to record with it needs a transaction around it.
 */
export async function createTransaction(
  ctx: MerchantContext,
  input: CreateTransaction,
): Promise<PublicTransaction> {
  const event = input.cardTransactionType === 'AUTH_CAPTURE' ? 'Charge' : 'AuthOnly';
  const needsTransaction = input.pfToken !== undefined || (await isEventWanted(ctx, ctx.em, event));
  const atomically = needsTransaction
    ? (work: (em: EntityManager) => Promise<PublicTransaction>) => inTransaction(ctx.em, work)
    : (work: (em: EntityManager) => Promise<PublicTransaction>) => work(ctx.em);
  return atomically(async (em) => {
    const now = await callNow(ctx, em);
    const source = await paymentSource(ctx, em, input, now);
    const { known } = source;
    const wallet = source.wallet;
    const money = { amountMinor: toMinorUnits(input.amount, input.currency), currency: input.currency };
    const { amountMinor } = money;
    const cardHolder = input.cardHolderInfo ?? (wallet && walletCardHolder(wallet));
    const payment = source.wallet
      ? {
          wallet: {
            walletType: source.wallet.walletType,
            environment: source.wallet.environment,
            brand: source.wallet.brand,
            lastFour: source.wallet.lastFour,
            paymentData: source.wallet.paymentData,
          },
        }
      : { card: { ...source.material, brand: brandOf(source.material.number) as CardBrand } };
    const result = await ctx.acquirer.authorize({
      amountMinor,
      currency: input.currency,
      ...payment,
      ...(cardHolder ? { cardHolder } : {}),
      ...(input.threeDSecure ? { threeDSecure: input.threeDSecure } : {}),
      now,
    });
    const payer = {
      firstName: cardHolder?.firstName ?? known?.firstName ?? '',
      lastName: cardHolder?.lastName ?? known?.lastName ?? '',
    };
    if (!result.approved) {
      throw new CardDeclined(result.reason, declineDescriptions[result.reason], {
        ...cardEventParameters(source.shown, known ?? undefined, money, now),
        merchantTransactionId: input.merchantTransactionId ?? '',
        ...payer,
      });
    }
    const { approved: _, tokenizedCard, threeDSecure, ...processing } = result;
    const capture = input.cardTransactionType === 'AUTH_CAPTURE';
    const sale: SaleColumns = {
      merchantTransactionId: input.merchantTransactionId ?? null,
      wallet: wallet ? walletCard(ctx.acquirer, wallet, tokenizedCard) : null,
      type: input.cardTransactionType,
      status: capture ? 'CAPTURED' : 'AUTHORIZED',
      currency: input.currency,
      amountMinor,
      capturedMinor: capture ? amountMinor : 0,
      softDescriptor: input.softDescriptor ?? null,
      cardHolder: cardHolder ?? null,
      processing,
      threeDSecure: threeDSecureRecord(input.threeDSecure, threeDSecure),
      transactionMetaData: input.transactionMetaData ?? null,
      level3Data: input.level3Data ?? null,
      transactionFraudInfo: input.transactionFraudInfo ?? null,
      authorizedAt: now,
    };
    // An approval with no sale to show for it must not hold the shopper's funds.
    const written = await insertSale(em, ctx.merchantId, source.shopper, source.card, sale).catch(
      async (error: unknown) => {
        await ctx.acquirer.reverse(processing.networkTransactionId);
        throw error;
      },
    );
    const transaction: TransactionState = {
      ...sale,
      id: written.transactionId,
      shopper: { id: written.shopperId },
      card: source.wallet ? null : source.shown,
    };
    await recordEvent(
      ctx,
      em,
      event,
      cardEventParameters(cardOf(transaction), { id: written.shopperId, ...payer }, money, now, transaction),
    );
    return present(transaction);
  }).catch(async (error: unknown) => {
    if (error instanceof ReportedFailure) await recordReportedFailure(ctx, error);
    throw error;
  });
}

/** Finds and locks the transaction, so concurrent captures, reversals and refunds of it run one at a time. */
async function lockTransaction(
  em: EntityManager,
  merchantId: number,
  by: { transactionId?: string | undefined; merchantTransactionId?: string | undefined },
): Promise<CardTransaction | null> {
  const id = by.transactionId === undefined ? undefined : transactionIdOf(by.transactionId);
  if (id === null) return null;
  const where = id === undefined ? { merchantTransactionId: by.merchantTransactionId } : { id };
  return em.findOne(
    CardTransaction,
    { ...where, merchantId },
    { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['card', 'shopper'] },
  );
}

function requireOpenAuthorization(transaction: CardTransaction): void {
  if (transaction.status === 'CAPTURED')
    throw new DomainError(
      'TRANSACTION_ALREADY_CAPTURED',
      `transaction ${transaction.id} is already captured`,
    );
  if (transaction.status === 'REVERSED') {
    throw new DomainError(
      'AUTHORIZATION_AMOUNT_ALREADY_REVERSED',
      `the authorization ${transaction.id} is already reversed`,
    );
  }
}

async function reverse(ctx: MerchantContext, em: EntityManager, transaction: CardTransaction): Promise<void> {
  requireOpenAuthorization(transaction);
  const now = await callNow(ctx, em);
  if (now.getTime() - transaction.authorizedAt.getTime() > reversalWindowSeconds * 1000) {
    throw new DomainError(
      'AUTHORIZATION_EXPIRED',
      'the authorization is more than 8 days old and can no longer be reversed',
    );
  }
  await ctx.acquirer.reverse(transaction.processing.networkTransactionId);
  transaction.status = 'REVERSED';
  await recordEvent(
    ctx,
    em,
    'Cancellation',
    transactionEventParameters(transaction, transaction.amountMinor, now),
  );
}

function transactionEventParameters(transaction: CardTransaction, amountMinor: number, now: Date) {
  return cardEventParameters(
    cardOf(transaction),
    transaction.shopper,
    { amountMinor, currency: transaction.currency },
    now,
    transaction,
  );
}

/** CAPTURE (full or partial) and AUTH_REVERSAL of an AUTH_ONLY authorization. */
export async function updateTransaction(
  ctx: MerchantContext,
  input: UpdateTransaction,
): Promise<PublicTransaction> {
  return inTransaction(ctx.em, async (em) => {
    const transaction = await lockTransaction(em, ctx.merchantId, input);
    if (!transaction)
      throw new DomainError(
        'AUTHORIZATION_NOT_FOUND',
        'no authorization matches the transactionId or merchantTransactionId',
      );
    if (input.cardTransactionType === 'AUTH_REVERSAL') {
      await reverse(ctx, em, transaction);
    } else {
      requireOpenAuthorization(transaction);
      const amountMinor =
        input.amount === undefined
          ? transaction.amountMinor
          : amountInMinorUnits(input.amount, transaction.currency);
      if (amountMinor > transaction.amountMinor) {
        throw new DomainError('VALIDATION_GENERAL_FAILURE', 'amount: exceeds the authorized amount', {
          name: 'amount',
          messageValue: input.amount ?? '',
        });
      }
      await ctx.acquirer.capture(transaction.processing.networkTransactionId, amountMinor);
      transaction.status = 'CAPTURED';
      transaction.capturedMinor = amountMinor;
      await recordEvent(
        ctx,
        em,
        'Charge',
        transactionEventParameters(transaction, amountMinor, await callNow(ctx, em)),
      );
    }
    await em.flush();
    return present(transaction);
  });
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
  return present(transaction);
}

/**
 * Refunds what was captured, in parts or whole, never beyond it. An authorization not yet captured has
 * nothing to refund: refunding it voids it (decisions.md).
 */
export async function refundTransaction(ctx: MerchantContext, input: RefundRequest): Promise<PublicRefund> {
  return inTransaction(ctx.em, async (em) => {
    const transaction = await lockTransaction(em, ctx.merchantId, input);
    if (!transaction) throw transactionNotFound(input);
    const { currency } = transaction;
    const now = await callNow(ctx, em);
    let amountMinor: number;
    if (transaction.status === 'AUTHORIZED') {
      amountMinor = transaction.amountMinor;
      if (input.amount !== undefined && amountInMinorUnits(input.amount, currency) !== amountMinor) {
        throw new DomainError(
          'REFUND_AMOUNT_EXCEEDS_BALANCE',
          'an uncaptured authorization can only be voided whole',
        );
      }
      await reverse(ctx, em, transaction);
    } else if (transaction.status === 'REVERSED') {
      throw new DomainError(
        'AUTHORIZATION_AMOUNT_ALREADY_REVERSED',
        `the authorization ${transaction.id} was reversed; nothing was captured`,
      );
    } else {
      const balance = transaction.capturedMinor - transaction.refundedMinor;
      amountMinor = input.amount === undefined ? balance : amountInMinorUnits(input.amount, currency);
      if (amountMinor > balance || balance === 0) {
        throw new DomainError(
          'REFUND_AMOUNT_EXCEEDS_BALANCE',
          `the refundable balance is ${minorToAmount(balance, currency)} ${currency}`,
          {
            name: 'amount',
            ...(input.amount ? { messageValue: input.amount } : {}),
          },
        );
      }
      await ctx.acquirer.refund(transaction.processing.networkTransactionId, amountMinor);
      transaction.refundedMinor += amountMinor;
      await recordEvent(ctx, em, 'Refund', transactionEventParameters(transaction, amountMinor, now));
    }
    const refund = em.create(Refund, {
      merchantId: ctx.merchantId,
      transaction,
      amountMinor,
      ...refundColumns(input, currency),
    });
    await em.flush();
    return refundAnswer(refund, transaction.id, currency, now);
  });
}
