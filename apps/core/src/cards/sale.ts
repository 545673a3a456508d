import type { EntityManager } from '@mikro-orm/postgresql';
import {
  brandOf,
  type CardBrand,
  type createTransactionInput,
  type CardTransaction as PublicTransaction,
  toMinorUnits,
} from '@paywire/contracts';
import type { z } from 'zod';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { type EventParameters, recordEvent, recordReportedFailure } from '../ipn/events.ts';
import type { Shopper, StoredCard } from '../shoppers/entities.ts';
import {
  type CardFacts,
  defaultCard,
  findShopper,
  pickFields,
  shopperCard,
  vaultable,
} from '../shoppers/service.ts';
import { type CardMaterial, consumeToken } from '../tokens/service.ts';
import { resolveWalletToken, walletCard, walletCardHolder, walletShopperFields } from '../wallets/service.ts';
import type { DecodedWalletToken } from '../wallets/token.ts';
import type { Approval, DeclineReason } from './acquirer.ts';
import { AttemptTakenOver, openAttempt, settleAttempt, voidAttempt } from './attempts.ts';
import type { ThreeDSecureRecord } from './entities.ts';
import { CardDeclined, type CardView, cardEventParameters } from './events.ts';
import { cardOf, present, type TransactionState } from './presentation.ts';
import { insertSale, type SaleCard, type SaleColumns, type SaleShopper } from './sale-writer.ts';

type CreateTransaction = z.output<typeof createTransactionInput>;

const declineDescriptions: Record<DeclineReason, string> = {
  DO_NOT_HONOR: 'the card issuer declined the transaction',
  INSUFFICIENT_FUNDS: 'the card has insufficient funds',
  EXPIRED_CARD: 'the card has expired',
  CVV_ERROR: 'the security code does not match',
  CARD_LOST_OR_STOLEN: 'the card is reported lost or stolen',
  CALL_ISSUER: 'the card issuer asks to be called',
};

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
  /** The vaulted shopper and card to charge, read by the caller already: not read again (renewals). */
  vaulted?: { shopper: Shopper; card: StoredCard };
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
  { cardId, vaulted }: Pick<SaleOptions, 'cardId' | 'vaulted'>,
): Promise<PaymentSource> {
  const wallet = input.wallet && resolveWalletToken(ctx.mode, input.wallet);
  const known =
    vaulted?.shopper ??
    (input.vaultedShopperId ? await findShopper(em, ctx.merchantId, input.vaultedShopperId) : null);
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
  const stored =
    vaulted?.card ??
    (cardId === undefined ? await defaultCard(em, known) : await shopperCard(em, known, cardId));
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
    const source = await paymentSource(ctx, em, input, now, options);
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
