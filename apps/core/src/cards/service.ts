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
import { type EventParameters, recordEvent, recordReportedFailure } from '../ipn/events.ts';
import { refundAnswer, refundColumns } from '../refunds/answer.ts';
import type { Shopper } from '../shoppers/entities.ts';
import {
  type CardFacts,
  type CardMaterial,
  cardResponse,
  defaultCard,
  findShopper,
  pickFields,
  shopperCard,
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
import { type AttemptKind, AttemptTakenOver, openAttempt, settleAttempt, voidAttempt } from './attempts.ts';
import { CardTransaction, Refund, type ThreeDSecureRecord } from './entities.ts';
import { CardDeclined, type CardView, cardEventParameters } from './events.ts';
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

/**
 * What a caller inside core adds to a sale (recurring billing): the attempt's reference, the vaulted card to
 * charge, the event and its extra parameters, and writes that commit with the sale. `withSale` returns
 * what a keyed call records as its answer in place of the sale.
 */
export interface SaleOptions {
  reference?: string;
  cardId?: number;
  event?: 'Charge' | 'Recurring';
  eventParameters?: EventParameters;
  withSale?: (
    em: EntityManager,
    sale: { transactionId: number; shopperId: number; answer: PublicTransaction },
  ) => Promise<unknown>;
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
  cardId?: number,
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
  const stored = cardId === undefined ? await defaultCard(em, known) : await shopperCard(em, known, cardId);
  const number = ctx.vault.open(stored.sealedNumber);
  return { ...payer, material: { ...stored, number }, card: { id: stored.id }, shown: stored };
}

/**
 * AUTH_CAPTURE and AUTH_ONLY, in three phases with no transaction, connection or lock held across the
 * acquirer's answer: (1) what pays is read (a token spent) and the attempt is committed with the reference
 * the acquirer will know it by; (2) the acquirer is asked; (3) the sale, its event, the attempt's outcome and
 * a keyed call's answer commit together. A decline writes no sale. An unknown outcome (the acquirer did not
 * answer, core died) leaves the attempt pending for the recovery worker, which voids it.
 */
export async function createTransaction(
  ctx: MerchantContext,
  input: CreateTransaction,
  options: SaleOptions = {},
): Promise<PublicTransaction> {
  const event = input.cardTransactionType === 'AUTH_CAPTURE' ? (options.event ?? 'Charge') : 'AuthOnly';
  const money = { amountMinor: toMinorUnits(input.amount, input.currency), currency: input.currency };
  const { amountMinor } = money;
  const prepare = async (em: EntityManager) => {
    const now = await callNow(ctx, em);
    const source = await paymentSource(ctx, em, input, now, options.cardId);
    const reference = await openAttempt(em, {
      merchantId: ctx.merchantId,
      kind: 'AUTHORIZE',
      amountMinor,
      idempotencyKey: ctx.keyed?.key,
      reference: options.reference,
    });
    return { now, source, reference };
  };
  // Only a token to spend needs a transaction around the attempt (its row is locked while it is spent).
  const { now, source, reference } =
    input.pfToken === undefined ? await prepare(ctx.em) : await inTransaction(ctx.em, prepare);
  const { known, wallet } = source;
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
    reference,
    amountMinor,
    capture: input.cardTransactionType === 'AUTH_CAPTURE',
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
    await inTransaction(ctx.em, (em) => settleAttempt(em, reference, 'DECLINED'));
    const declined = new CardDeclined(result.reason, declineDescriptions[result.reason], {
      ...cardEventParameters(source.shown, known ?? undefined, money, now),
      merchantTransactionId: input.merchantTransactionId ?? '',
      ...payer,
    });
    await recordReportedFailure(ctx, declined);
    throw declined;
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
  try {
    return await inTransaction(ctx.em, async (em) => {
      const written = await insertSale(em, ctx.merchantId, source.shopper, source.card, sale);
      if (!(await settleAttempt(em, reference, 'DONE', written.transactionId))) throw new AttemptTakenOver();
      const transaction: TransactionState = {
        ...sale,
        id: written.transactionId,
        shopper: { id: written.shopperId },
        card: source.wallet ? null : source.shown,
      };
      await recordEvent(ctx, em, event, {
        ...cardEventParameters(
          cardOf(transaction),
          { id: written.shopperId, ...payer },
          money,
          now,
          transaction,
        ),
        ...options.eventParameters,
      });
      const answer = present(transaction);
      const recorded = options.withSale ? await options.withSale(em, { ...written, answer }) : answer;
      await ctx.keyed?.record(em, recorded);
      return answer;
    });
  } catch (error) {
    // An approval with no sale to show for it must not hold the shopper's funds.
    await voidAttempt(ctx, reference, async () => processing.networkTransactionId);
    throw error;
  }
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

/** Checks a reversal of an open authorization and moves it to REVERSED (committed with its attempt). */
function reserveReversal(transaction: CardTransaction, now: Date): Reservation {
  requireOpenAuthorization(transaction);
  if (now.getTime() - transaction.authorizedAt.getTime() > reversalWindowSeconds * 1000) {
    throw new DomainError(
      'AUTHORIZATION_EXPIRED',
      'the authorization is more than 8 days old and can no longer be reversed',
    );
  }
  transaction.status = 'REVERSED';
  return { kind: 'REVERSE', amountMinor: transaction.amountMinor, event: 'Cancellation' };
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

/** A change reserved on a transaction: the acquirer call it stands for, and the event it makes. */
interface Reservation {
  kind: Exclude<AttemptKind, 'AUTHORIZE'>;
  amountMinor: number;
  event: 'Charge' | 'Cancellation' | 'Refund';
}

/** The acquirer call of a reserved change, by the attempt's reference (idempotent at the acquirer). */
export function callAcquirer(
  ctx: Pick<MerchantContext, 'acquirer'>,
  kind: Reservation['kind'],
  networkTransactionId: string,
  amountMinor: number,
  reference: string,
): Promise<void> {
  if (kind === 'CAPTURE') return ctx.acquirer.capture(networkTransactionId, amountMinor, reference);
  if (kind === 'REFUND') return ctx.acquirer.refund(networkTransactionId, amountMinor, reference);
  return ctx.acquirer.reverse(networkTransactionId, reference);
}

/**
 * A capture, reversal or refund in phases, no lock held across the acquirer's answer: (1) under the row
 * lock the change is checked and reserved (status and amounts move, the attempt is written) and committed,
 * so a concurrent change sees it and nothing is ever captured, reversed or refunded beyond what was
 * authorized; (2) the acquirer is called by the attempt's reference; (3) the attempt is settled with the
 * event and a keyed call's answer. An unknown outcome leaves the attempt pending: the recovery worker
 * repeats the call by its reference, which the acquirer does at most once, and settles it.
 */
async function changeInPhases<T>(
  ctx: MerchantContext,
  by: { transactionId?: string | undefined; merchantTransactionId?: string | undefined },
  notFound: () => Error,
  reserve: (em: EntityManager, transaction: CardTransaction, now: Date) => Reservation,
  answer: (transaction: CardTransaction, now: Date) => T,
): Promise<T> {
  const { transaction, now, reservation, reference } = await inTransaction(ctx.em, async (em) => {
    const transaction = await lockTransaction(em, ctx.merchantId, by);
    if (!transaction) throw notFound();
    const now = await callNow(ctx, em);
    const reservation = reserve(em, transaction, now);
    const reference = await openAttempt(em, {
      merchantId: ctx.merchantId,
      kind: reservation.kind,
      amountMinor: reservation.amountMinor,
      idempotencyKey: ctx.keyed?.key,
      transactionId: transaction.id,
    });
    return { transaction, now, reservation, reference };
  });
  const { kind, amountMinor, event } = reservation;
  await callAcquirer(ctx, kind, transaction.processing.networkTransactionId, amountMinor, reference);
  return inTransaction(ctx.em, async (em) => {
    await settleAttempt(em, reference, 'DONE');
    await recordEvent(ctx, em, event, transactionEventParameters(transaction, amountMinor, now));
    const result = answer(transaction, now);
    await ctx.keyed?.record(em, result);
    return result;
  });
}

/** CAPTURE (full or partial) and AUTH_REVERSAL of an AUTH_ONLY authorization. */
export async function updateTransaction(
  ctx: MerchantContext,
  input: UpdateTransaction,
): Promise<PublicTransaction> {
  const notFound = () =>
    new DomainError(
      'AUTHORIZATION_NOT_FOUND',
      'no authorization matches the transactionId or merchantTransactionId',
    );
  return changeInPhases(
    ctx,
    input,
    notFound,
    (_em, transaction, now) => {
      if (input.cardTransactionType === 'AUTH_REVERSAL') return reserveReversal(transaction, now);
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
      transaction.status = 'CAPTURED';
      transaction.capturedMinor = amountMinor;
      return { kind: 'CAPTURE', amountMinor, event: 'Charge' };
    },
    (transaction) => present(transaction),
  );
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
  let refund: Refund | undefined;
  return changeInPhases(
    ctx,
    input,
    () => transactionNotFound(input),
    (em, transaction, now) => {
      const { currency } = transaction;
      let reservation: Reservation;
      if (transaction.status === 'AUTHORIZED') {
        if (
          input.amount !== undefined &&
          amountInMinorUnits(input.amount, currency) !== transaction.amountMinor
        ) {
          throw new DomainError(
            'REFUND_AMOUNT_EXCEEDS_BALANCE',
            'an uncaptured authorization can only be voided whole',
          );
        }
        reservation = reserveReversal(transaction, now);
      } else if (transaction.status === 'REVERSED') {
        throw new DomainError(
          'AUTHORIZATION_AMOUNT_ALREADY_REVERSED',
          `the authorization ${transaction.id} was reversed; nothing was captured`,
        );
      } else {
        const balance = transaction.capturedMinor - transaction.refundedMinor;
        const amountMinor = input.amount === undefined ? balance : amountInMinorUnits(input.amount, currency);
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
        transaction.refundedMinor += amountMinor;
        reservation = { kind: 'REFUND', amountMinor, event: 'Refund' };
      }
      refund = em.create(Refund, {
        merchantId: ctx.merchantId,
        transaction,
        amountMinor: reservation.amountMinor,
        ...refundColumns(input, currency),
      });
      return reservation;
    },
    (transaction, now) => refundAnswer(refund as Refund, transaction.id, transaction.currency, now),
  );
}
