import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  brandOf,
  type CardBrand,
  type createTransactionInput,
  DomainError,
  type FraudResultInfo,
  type CardTransaction as PublicTransaction,
  toMinorUnits,
} from '@paywire/contracts';
import type { z } from 'zod';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import type { FraudRules } from '../fraud/rules.ts';
import { FraudDeclined, screenSale, screensInTransaction } from '../fraud/screening.ts';
import { type EventParameters, recordEvent, recordReportedFailure } from '../ipn/events.ts';
import { presentSplit, recordSplit, resolveSplit } from '../marketplace/splits.ts';
import { callFacts, type MerchantFacts } from '../merchants/facts.ts';
import {
  cancelApproval,
  openSaleAttempt,
  type SaleReservation,
  settleAttempt,
} from '../payments/attempts.ts';
import { type AuthorizationCall, type Authorized, authorizeWithFailover } from '../payments/authorize.ts';
import { refuseTakenMerchantTransactionId } from '../payments/merchant-transaction-id.ts';
import { type PaymentOperation, runPayment } from '../payments/pipeline.ts';
import { rollOf } from '../processors/directory.ts';
import type { Approval, AuthorizationRequest, DeclineReason } from '../processors/processor.ts';
import { bindings } from '../security/card-vault.ts';
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
 * What a caller inside core adds to a sale (recurring billing): the attempt's reference (derived from its
 * charge row), the vaulted card to charge, and the event with its extra parameters.
 */
export interface SaleOptions {
  reference?: string;
  cardId?: number;
  /** The security code the shopper gave again for the vaulted card (an Extended order's). */
  securityCode?: string;
  /** The vaulted shopper and card to charge, read by the caller already: not read again (renewals). */
  vaulted?: { shopper: Shopper; card: StoredCard };
  event?: 'Charge' | 'Recurring';
  eventParameters?: EventParameters;
  /**
   * Whether the merchant's fraud rules screen the sale (default true); a subscription's later charges, which
   * the merchant's schedule makes with no shopper present, are not screened (docs/fraud.md).
   */
  screen?: boolean;
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
  { cardId, vaulted, securityCode }: Pick<SaleOptions, 'cardId' | 'vaulted' | 'securityCode'>,
): Promise<PaymentSource> {
  const wallet = input.wallet && (await resolveWalletToken(ctx, em, input.wallet, now));
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
  if (wallet) return { ...payer, wallet, card: null, shown: walletCard(ctx.cardProfile, wallet) };
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
  // A removed card keeps only its facts (0029-retention); a renewal read it before the removal committed.
  if (!stored.sealedNumber || !stored.fingerprint)
    throw new DomainError('INVALID_PAYMENT_DETAILS', 'the card to charge is no longer vaulted');
  const number = ctx.vault.open(stored.sealedNumber, bindings.card(stored.merchantId, stored.fingerprint));
  const vaultedMaterial = { ...stored, number, ...(securityCode ? { securityCode } : {}) };
  return { ...payer, material: vaultedMaterial, card: { id: stored.id }, shown: stored };
}

/** The merchant's facts changed after the sale was routed with them: its attempt was not written. */
class FactsMovedOn extends Error {
  constructor() {
    super("the merchant's facts changed while the sale was prepared");
  }
}

/** A sale prepared: what pays, and the authorization call its attempt was written for. */
export interface PreparedSale {
  now: Date;
  source: PaymentSource;
  call: AuthorizationCall;
  /** The ids the sale is written under, reserved with its attempt. */
  reserved: SaleReservation;
  /** Set when the merchant's fraud rules screened the sale. */
  fraudResultInfo: FraudResultInfo | null;
}

/** What a sale's record phase made: the sale, or a decline (nothing written but the attempt's outcome). */
export type SaleRecord =
  | { declined: CardDeclined }
  | { declined?: undefined; answer: PublicTransaction; transactionId: number; shopperId: number };

/**
 * AUTH_CAPTURE and AUTH_ONLY as a payment operation (payments/pipeline.ts): prepare reads what pays (a token
 * is spent), routes the payment and commits the attempt; call authorizes, failing over between the
 * merchant's accounts; record writes the sale, its event and the attempt's outcome together. A decline
 * writes no sale. An unknown outcome leaves the attempt pending for the recovery worker, which voids it.
 * `record` leaves a keyed call's answer to the operation that runs it (a sale's is the sale; a subscription
 * charge's, the charge).
 */
export function saleOperation(
  ctx: MerchantContext,
  input: CreateTransaction,
  options: SaleOptions = {},
): PaymentOperation<PreparedSale, Authorized, SaleRecord> {
  const event = input.cardTransactionType === 'AUTH_CAPTURE' ? (options.event ?? 'Charge') : 'AuthOnly';
  const capture = input.cardTransactionType === 'AUTH_CAPTURE';
  const money = { amountMinor: toMinorUnits(input.amount, input.currency), currency: input.currency };
  const { amountMinor, currency } = money;
  const payerOf = (source: PaymentSource, cardHolder: PreparedSale['call']['request']['cardHolder']) => ({
    firstName: cardHolder?.firstName ?? source.known?.firstName ?? '',
    lastName: cardHolder?.lastName ?? source.known?.lastName ?? '',
  });
  /** A sale that failed before it was written (a decline, a fraud rule): what its event reports. */
  const failureParameters = (
    source: PaymentSource,
    now: Date,
    cardHolder: PreparedSale['call']['request']['cardHolder'],
  ) => ({
    ...cardEventParameters(source.shown, source.known ?? undefined, money, now),
    merchantTransactionId: input.merchantTransactionId ?? '',
    ...payerOf(source, cardHolder),
  });
  const ipAddress = input.transactionFraudInfo?.shopperIpAddress;
  const screen = (
    em: EntityManager,
    rules: FraudRules,
    { now, source, brand }: { now: Date; source: PaymentSource; brand: CardBrand },
  ) =>
    screenSale(
      ctx,
      em,
      rules,
      {
        amountMinor,
        currency,
        ...(source.wallet ? {} : { cardFingerprints: ctx.vault.fingerprints(source.material.number) }),
        cardCountry: ctx.cardProfile(source.wallet ? { brand } : { number: source.material.number, brand })
          .issuingCountry,
        ...(ipAddress ? { ipAddress } : {}),
        deviceData: input.transactionFraudInfo?.fraudSessionId !== undefined,
        now,
      },
      () => failureParameters(source, now, input.cardHolderInfo),
    );
  const prepare = async (
    em: EntityManager,
    rules: FraudRules | null,
    routing: MerchantFacts['routing'],
    factsVersion: string | null,
  ): Promise<PreparedSale> => {
    await refuseTakenMerchantTransactionId(em, ctx.merchantId, input.merchantTransactionId);
    const now = await callNow(ctx, em);
    const source = await paymentSource(ctx, em, input, now, options);
    const reference = options.reference ?? randomUUID();
    const brand = source.wallet ? source.wallet.brand : (brandOf(source.material.number) as CardBrand);
    const fraudResultInfo = rules && (await screen(em, rules, { now, source, brand }));
    const accounts = ctx.processors.route(
      ctx.merchantId,
      routing,
      { currency, brand, amountMinor, roll: rollOf(reference) },
      ctx.mode,
    );
    const [first] = accounts;
    if (!first) {
      throw new DomainError('NO_PROCESSOR_ACCOUNT', `no processor account of the merchant takes ${currency}`);
    }
    const reserved = await openSaleAttempt(
      em,
      {
        merchantId: ctx.merchantId,
        amountMinor,
        currency,
        accountId: first.id,
        idempotencyKey: ctx.keyed?.key,
        reference,
      },
      !('id' in source.shopper),
      factsVersion,
    );
    if (!reserved) throw new FactsMovedOn();
    const cardHolder = input.cardHolderInfo ?? (source.wallet && walletCardHolder(source.wallet));
    const payment = source.wallet
      ? {
          wallet: {
            walletType: source.wallet.walletType,
            environment: source.wallet.environment,
            brand,
            lastFour: source.wallet.lastFour,
            paymentData: source.wallet.paymentData,
            ...(source.wallet.decrypted ? { decrypted: source.wallet.decrypted } : {}),
          },
        }
      : { card: { ...source.material, brand } };
    const request: AuthorizationRequest = {
      reference,
      amountMinor,
      capture,
      currency,
      ...payment,
      ...(cardHolder ? { cardHolder } : {}),
      ...(input.threeDSecure ? { threeDSecure: input.threeDSecure } : {}),
      now,
    };
    return { now, source, call: { request, accounts }, reserved, fraudResultInfo };
  };
  /**
   * Prepares on the merchant's facts: read in this call (no version to check), or last known to this core
   * (their version checked by the attempt's statement, which writes nothing once they have moved on). A sale
   * the merchant's fraud rules screen starts from facts read in the call, so that no rule since removed
   * refuses it.
   */
  const prepareOn = ({ fraudRules, routing }: MerchantFacts, factsVersion: string | null) => {
    const rules = options.screen === false ? null : fraudRules;
    return input.pfToken === undefined && !screensInTransaction(rules, ipAddress)
      ? prepare(ctx.em, rules, routing, factsVersion)
      : inTransaction(ctx.em, (em) => prepare(em, rules, routing, factsVersion));
  };
  return {
    // Only a token to spend (its row is locked while it is spent) or a sale the fraud rules count (under a
    // lock, recorded with its attempt) needs a transaction around the attempt; otherwise each statement is
    // atomic on its own.
    async prepare() {
      const known = ctx.memo.facts ? undefined : ctx.lastKnownFacts.of(ctx.merchantId);
      if (known && (options.screen === false || known.facts.fraudRules === null)) {
        ctx.memo.facts = Promise.resolve(known.facts);
        try {
          return await prepareOn(known.facts, known.version);
        } catch {
          // The attempt is prepare's last statement and the only write outside a transaction: what failed
          // wrote nothing, and may have failed on facts that have moved on. It is asked of them afresh.
          delete ctx.memo.facts;
        }
      }
      return prepareOn(await callFacts(ctx, ctx.em), null);
    },
    call: (ctx, { call }) => authorizeWithFailover(ctx.em, ctx.processors, call),
    async record(em, { now, source, call, reserved, fraudResultInfo }, { account, answer }) {
      const { reference, cardHolder } = call.request;
      const payer = payerOf(source, cardHolder);
      const { wallet } = source;
      if (!answer.approved) {
        await settleAttempt(em, reference, 'DECLINED', { declineReason: answer.reason });
        return {
          declined: new CardDeclined(
            answer.reason,
            declineDescriptions[answer.reason],
            failureParameters(source, now, cardHolder),
          ),
        };
      }
      const { approved: _, tokenizedCard, threeDSecure, processorReference, ...processing } = answer;
      const sale: SaleColumns = {
        merchantTransactionId: input.merchantTransactionId ?? null,
        wallet: wallet ? walletCard(ctx.cardProfile, wallet, tokenizedCard) : null,
        type: input.cardTransactionType,
        status: capture ? 'CAPTURED' : 'AUTHORIZED',
        currency,
        amountMinor,
        capturedMinor: capture ? amountMinor : 0,
        softDescriptor: input.softDescriptor ?? null,
        cardHolder: cardHolder ?? null,
        processing,
        threeDSecure: threeDSecureRecord(input.threeDSecure, threeDSecure),
        transactionMetaData: input.transactionMetaData ?? null,
        level3Data: input.level3Data ?? null,
        transactionFraudInfo: input.transactionFraudInfo ?? null,
        fraudResultInfo,
        authorizedAt: now,
        processorAccountId: account.id,
        processorReference,
      };
      const written = await insertSale(em, ctx.merchantId, reserved, {
        shopper: source.shopper,
        card: source.card,
        sale,
      });
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
      return { answer: present(transaction), ...written };
    },
    // An approval with no sale to show for it must not hold the shopper's funds.
    async compensate(ctx, { call }, { account, answer }) {
      if (!answer.approved) return;
      const attempt = { reference: call.request.reference, amountMinor, currency };
      await cancelApproval(ctx.em, ctx.processors.connect(account), attempt, answer.processorReference);
    },
  };
}

/** A sale as its record phase wrote it. */
export type MadeSale = Exclude<SaleRecord, { declined: CardDeclined }>;

/**
 * Runs a sale through the pipeline as part of something larger: `andThen` writes what commits with the sale
 * (a subscription and its first charge, a charge row) in the record phase's transaction, and what it returns
 * is the call's answer, recorded for a keyed call. A decline is reported (its IPN) and thrown.
 */
export async function runSale<T>(
  ctx: MerchantContext,
  input: CreateTransaction,
  options: SaleOptions,
  andThen: (em: EntityManager, sale: MadeSale) => Promise<T>,
): Promise<T> {
  const sale = saleOperation(ctx, input, options);
  const recorded = await runPayment(ctx, {
    ...sale,
    async record(em, prepared, outcome) {
      const result = await sale.record(em, prepared, outcome);
      if (result.declined) return { declined: result.declined };
      const value = await andThen(em, result);
      await ctx.keyed?.record(em, value);
      return { declined: undefined, value };
    },
  }).catch(async (error: unknown) => {
    // A sale the fraud rules declined in prepare is reported as a processor's decline is.
    if (error instanceof FraudDeclined) await recordReportedFailure(ctx, error);
    throw error;
  });
  if (recorded.declined === undefined) return recorded.value;
  await recordReportedFailure(ctx, recorded.declined);
  throw recorded.declined;
}

/** A merchant's sale or authorization (POST /transactions): the answer is the sale. */
export async function createTransaction(
  ctx: MerchantContext,
  input: CreateTransaction,
): Promise<PublicTransaction> {
  const amountMinor = toMinorUnits(input.amount, input.currency);
  const split = await resolveSplit(ctx.em, ctx.merchantId, input, { amountMinor, currency: input.currency });
  return runSale(ctx, input, {}, async (em, sale) => {
    await ctx.afterCardSale?.(ctx, em, {
      transactionId: sale.transactionId,
      cardLastFour: sale.answer.creditCard?.cardLastFourDigits,
    });
    if (!split) return sale.answer;
    await recordSplit(em, ctx.merchantId, sale.transactionId, split);
    return { ...sale.answer, ...presentSplit(split, input.currency) };
  });
}
