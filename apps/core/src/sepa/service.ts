import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import {
  type AltTransaction,
  achReturnError,
  type altTransactionIdInput,
  amountInMinorUnits,
  type createAltTransactionInput,
  DomainError,
  type EcpAccount,
  type mandateTextInput,
  minorToAmount,
  minorToDecimal,
  type Refund as PublicRefund,
  preNotificationPath,
  publicEcpAccount,
  type refundInput,
  type SepaDebitDetails,
  type SepaLanguage,
  type SepaStatus,
  type SepaTranslations,
  sepaLanguages,
  shortDate,
  type TransactionIds,
  type TransactionMetaData,
  transactionIdOf,
  type transactionPreNotificationInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import { addSeconds, callNow } from '../clock/clock.ts';
import type { MerchantContext, Mode } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { duplicateMerchantTransactionId, transactionNotFound } from '../errors.ts';
import { type EventParameters, ipnDate, recordEvent } from '../ipn/events.ts';
import { presentVendorRefunds, recordVendorRefunds, takeVendorRefunds } from '../marketplace/refunds.ts';
import { shownSplitOf } from '../marketplace/splits.ts';
import { claimMerchantTransactionId } from '../payments/queries.ts';
import { type RefundFollowUp, refundAnswer, refundColumns } from '../payments/refund-answer.ts';
import { recordPaymentChange } from '../security/audit/trail.ts';
import { bindings, type CardVault } from '../security/card-vault.ts';
import type { Shopper } from '../shoppers/entities.ts';
import { liveCollectionBusinessDays, type SepaSettings } from './bank.ts';
import { addBusinessDays, isFederalReserveBusinessDay, isTargetBusinessDay } from './business-days.ts';
import { type DebitCurrency, type DebitScheme, SepaDebit, SepaMandate, SepaRefund } from './entities.ts';
import { mandateFor } from './mandates.ts';
import { mandateText, type PreNotification, preNotificationText } from './texts.ts';

type CreateAltTransaction = z.output<typeof createAltTransactionInput>;
type RefundRequest = z.output<typeof refundInput>;

/** What opening a debit of any scheme needs; the shopper is a managed entity of `em`, new or found. */
export interface DebitRequest {
  shopper: Shopper;
  payer: { firstName: string; lastName: string };
  amountMinor: number;
  currency: DebitCurrency;
  merchantTransactionId?: string;
  transactionMetaData?: TransactionMetaData;
}

/** A SEPA debit's request: the IBAN, already parsed by ibanInput (no spaces, upper case, valid). */
export interface SepaDebitRequest extends DebitRequest {
  iban: string;
  currency: 'EUR';
}

/**
 * A debit as the service sees it. Dates are by the merchant's clock. An ACH debit (docs/ach.md) has `ecp`,
 * its account as answers show it; the SEPA fields of an ACH debit hold its authorization's reference and no
 * pre-notification.
 */
export interface SepaDebitView {
  transactionId: string;
  status: SepaStatus;
  amountMinor: number;
  currency: DebitCurrency;
  ecp?: EcpAccount;
  ibanFirstFour: string;
  ibanLastFour: string;
  mandateId: string;
  /** dd-Mon-yy */
  mandateDate: string;
  preNotificationText: string;
  createdAt: Date;
  /** The collection date. */
  dueAt: Date;
  vaultedShopperId: number;
  payer: { firstName: string; lastName: string };
  merchantTransactionId?: string;
  transactionMetaData?: TransactionMetaData;
  refundedMinor: number;
  /** A failed or returned ACH debit's return code. */
  returnCode?: string;
}

/**
 * When the bank's next answer is due, by the merchant's clock: seconds in the sandbox, business days of the
 * scheme's calendar live (TARGET2's for SEPA, the Federal Reserve's for ACH).
 */
export function nextStepAt(
  settings: { mode: Mode; sepa: SepaSettings },
  from: Date,
  scheme: DebitScheme,
): Date {
  if (settings.mode === 'sandbox') return addSeconds(from, settings.sepa.sandboxSettleSeconds);
  const calendar = scheme === 'ACH' ? isFederalReserveBusinessDay : isTargetBusinessDay;
  return addBusinessDays(from, liveCollectionBusinessDays, calendar);
}

/** What an ACH mandate shows of its account. */
export function ecpAccountOf(mandate: SepaMandate): EcpAccount | undefined {
  if (mandate.scheme !== 'ACH' || !mandate.accountType || !mandate.routingNumber) return undefined;
  return publicEcpAccount(mandate.accountType, mandate.ibanLastFour, mandate.routingNumber);
}

function view(debit: SepaDebit, mandate: SepaMandate): SepaDebitView {
  const ecp = ecpAccountOf(mandate);
  return {
    transactionId: String(debit.id),
    ...(ecp ? { ecp } : {}),
    status: debit.status,
    amountMinor: debit.amountMinor,
    currency: debit.currency,
    ibanFirstFour: mandate.ibanFirstFour,
    ibanLastFour: mandate.ibanLastFour,
    mandateId: mandate.reference,
    mandateDate: shortDate(mandate.acceptedAt),
    preNotificationText: ecp ? '' : preNotificationText('en', notificationOf(debit, mandate)),
    createdAt: debit.submittedAt,
    dueAt: debit.dueAt,
    vaultedShopperId: debit.shopper.id,
    payer: { firstName: debit.payerFirstName, lastName: debit.payerLastName },
    ...(debit.merchantTransactionId ? { merchantTransactionId: debit.merchantTransactionId } : {}),
    ...(debit.transactionMetaData ? { transactionMetaData: debit.transactionMetaData } : {}),
    refundedMinor: debit.refundedMinor,
    // answered with the outcome, shown once it took effect
    ...(debit.returnCode && (debit.status === 'FAIL' || debit.status === 'REFUNDED')
      ? { returnCode: debit.returnCode }
      : {}),
  };
}

function notificationOf(debit: SepaDebit, mandate: SepaMandate) {
  return {
    amountMinor: debit.amountMinor,
    currency: debit.currency,
    collectionDate: debit.dueAt,
    mandateId: mandate.reference,
    ibanLastFour: mandate.ibanLastFour,
  };
}

/** The IPN parameters of a SEPA event (see docs/conformance.md, IPN delivery). */
export function sepaEventParameters(
  debit: {
    id: number;
    merchantTransactionId?: string | null | undefined;
    shopperId: number;
    payerFirstName: string;
    payerLastName: string;
    currency: string;
  },
  mandate: {
    scheme: DebitScheme;
    accountType?: string | null | undefined;
    reference: string;
    acceptedAt: Date;
    ibanFirstFour: string;
    ibanLastFour: string;
  },
  amountMinor: number,
  now: Date,
): EventParameters {
  const common = {
    referenceNumber: String(debit.id),
    merchantTransactionId: debit.merchantTransactionId ?? '',
    accountId: debit.shopperId,
    invoiceAmount: minorToDecimal(amountMinor, debit.currency),
    currency: debit.currency,
    paymentMethod: 'SEPA_DIRECT_DEBIT',
    paymentType: 'SEPA_DIRECT_DEBIT',
    firstName: debit.payerFirstName,
    lastName: debit.payerLastName,
    transactionDate: ipnDate(now),
  };
  // An ACH debit's events name the method as the original's do (ECP), with the account's type and last four.
  if (mandate.scheme === 'ACH') {
    return {
      ...common,
      paymentMethod: 'ECP',
      paymentType: 'ECP',
      ecpAccountType: mandate.accountType ?? '',
      ecpAccountLastFour: mandate.ibanLastFour,
    };
  }
  return { ...common, ibanFirstFour: mandate.ibanFirstFour, ibanLastFour: mandate.ibanLastFour };
}

/** The mandate parameters a Charge event adds (see docs/conformance.md, IPN delivery). */
export function mandateEventParameters(mandate: { reference: string; acceptedAt: Date }): EventParameters {
  return { sepaMandateId: mandate.reference, sepaMandateDate: shortDate(mandate.acceptedAt) };
}

const eventDebit = (debit: SepaDebit) => ({ ...debit, shopperId: debit.shopper.id });

/**
 * The IBAN a mandate debits, opened. A deleted shopper's mandates have none (erased with it; deletion waits
 * for its pending debits and subscriptions), so nothing can debit them again.
 */
export function mandateIban(vault: CardVault, mandate: SepaMandate): string {
  const { sealedIban, ibanFingerprint } = liveMandate(mandate);
  return vault.open(sealedIban, bindings.mandate(mandate.merchantId, ibanFingerprint));
}

function liveMandate(mandate: SepaMandate): { sealedIban: string; ibanFingerprint: string } {
  if (!mandate.sealedIban || !mandate.ibanFingerprint) {
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      `mandate ${mandate.reference} was erased with its deleted shopper and debits nothing`,
    );
  }
  return { sealedIban: mandate.sealedIban, ibanFingerprint: mandate.ibanFingerprint };
}

/** The currency a scheme debits in. */
export const schemeCurrency = (scheme: DebitScheme): DebitCurrency => (scheme === 'ACH' ? 'USD' : 'EUR');

/**
 * Opens a pending debit of a mandate already held (a subscription's), SEPA or ACH, in its scheme's currency,
 * as openDebit does; an erased mandate debits nothing.
 */
export async function openMandateDebit(
  ctx: MerchantContext,
  em: EntityManager,
  mandate: SepaMandate,
  request: Omit<DebitRequest, 'currency'>,
  now: Date,
): Promise<SepaDebitView> {
  liveMandate(mandate);
  await claimDebitTransactionId(ctx, em, request.merchantTransactionId);
  return openDebit(ctx, em, mandate, { ...request, currency: schemeCurrency(mandate.scheme) }, now);
}

async function flushDebit(em: EntityManager, merchantTransactionId: string | undefined): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    throw duplicateMerchantTransactionId(error, merchantTransactionId);
  }
}

/** Opens a pending SEPA debit of the IBAN (its mandate created or reused), as openDebit does. */
export async function openSepaDebit(
  ctx: MerchantContext,
  em: EntityManager,
  request: SepaDebitRequest,
  now: Date,
): Promise<SepaDebitView> {
  await claimDebitTransactionId(ctx, em, request.merchantTransactionId);
  return openDebit(ctx, em, await mandateFor(ctx, em, request.shopper, request.iban, now), request, now);
}

/** Claims the merchant's transaction id for a debit, before its mandate is written. */
export async function claimDebitTransactionId(
  ctx: MerchantContext,
  em: EntityManager,
  merchantTransactionId: string | undefined,
): Promise<void> {
  if (!merchantTransactionId) return;
  await executeParameterized(em, claimMerchantTransactionId, [ctx.merchantId, merchantTransactionId]).catch(
    (error: unknown) => {
      throw duplicateMerchantTransactionId(error, merchantTransactionId);
    },
  );
}

/**
 * Opens a pending debit of the mandate's account, SEPA or ACH, records ChargePending and schedules settlement
 * (the row's nextActionAt, which the settlement workers read), all in the caller's transaction; the
 * merchant's transaction id is claimed already (claimDebitTransactionId).
 */
export async function openDebit(
  ctx: MerchantContext,
  em: EntityManager,
  mandate: SepaMandate,
  request: DebitRequest,
  now: Date,
): Promise<SepaDebitView> {
  const { shopper, payer, amountMinor, currency } = request;
  const dueAt = nextStepAt(ctx, now, mandate.scheme);
  const debit = em.create(SepaDebit, {
    merchantId: ctx.merchantId,
    merchantTransactionId: request.merchantTransactionId ?? null,
    shopper,
    mandate,
    status: 'PENDING',
    outcome: null, // the bank is asked at the collection date (sepa/settlement.ts)
    presentingUntil: null,
    currency,
    amountMinor,
    refundedMinor: 0,
    payerFirstName: payer.firstName,
    payerLastName: payer.lastName,
    transactionMetaData: request.transactionMetaData ?? null,
    dueAt,
    nextActionAt: dueAt,
    settledAt: null,
    submittedAt: now,
  });
  await flushDebit(em, request.merchantTransactionId);
  await recordEvent(
    ctx,
    em,
    'ChargePending',
    sepaEventParameters(eventDebit(debit), mandate, amountMinor, now),
  );
  return view(debit, mandate);
}

/** The merchant's debit by its public id or the merchant's own, with its mandate; locked for a change when asked. */
async function loadDebit(em: EntityManager, merchantId: number, by: TransactionIds, lock = false) {
  const id = by.transactionId === undefined ? undefined : transactionIdOf(by.transactionId);
  if (id === null) return null;
  return em.findOne(
    SepaDebit,
    { ...(id === undefined ? { merchantTransactionId: by.merchantTransactionId } : { id }), merchantId },
    { populate: ['mandate'], ...(lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}) },
  );
}

export async function findSepaDebit(
  em: EntityManager,
  merchantId: number,
  transactionId: string,
): Promise<SepaDebitView | null> {
  const debit = await loadDebit(em, merchantId, { transactionId });
  return debit ? view(debit, debit.mandate) : null;
}

/** What a debit shows of its account and mandate; the link is a path, the facade adds the base URL. */
export function debitDetails(debit: SepaDebitView): SepaDebitDetails {
  return {
    ibanFirstFour: debit.ibanFirstFour,
    ibanLastFour: debit.ibanLastFour,
    mandateId: debit.mandateId,
    mandateDate: debit.mandateDate,
    preNotificationText: debit.preNotificationText,
    preNotificationTranslationRef: preNotificationPath(debit.transactionId),
  };
}

/** The public alt-transaction. */
export function presentAltTransaction(debit: SepaDebitView): AltTransaction {
  const account = debit.ecp
    ? { ecpTransaction: debit.ecp }
    : { sepaDirectDebitTransaction: debitDetails(debit) };
  return {
    transactionId: debit.transactionId,
    ...(debit.merchantTransactionId ? { merchantTransactionId: debit.merchantTransactionId } : {}),
    amount: minorToAmount(debit.amountMinor, debit.currency),
    currency: debit.currency,
    payerInfo: debit.payer,
    vaultedShopperId: debit.vaultedShopperId,
    authorizedByShopper: true,
    ...(debit.transactionMetaData ? { transactionMetaData: debit.transactionMetaData } : {}),
    ...account,
    processingInfo: {
      processingStatus: debit.status,
      ...(debit.returnCode ? { processingErrors: [achReturnError(debit.returnCode)] } : {}),
    },
  };
}

/**
 * The IBAN a returning shopper pays from when the request names none: the stored SEPA account whose first
 * and last four characters the request gives, else the one the shopper accepted a mandate for last.
 */
export async function storedIban(
  ctx: MerchantContext,
  em: EntityManager,
  shopper: Shopper,
  account: CreateAltTransaction['sepaDirectDebitTransaction'],
): Promise<string> {
  const [mandate] = await em.find(
    SepaMandate,
    {
      shopper,
      merchantId: ctx.merchantId,
      scheme: 'SEPA',
      ...(account?.ibanFirstFour ? { ibanFirstFour: account.ibanFirstFour } : {}),
      ...(account?.ibanLastFour ? { ibanLastFour: account.ibanLastFour } : {}),
    },
    { orderBy: { id: 'desc' }, limit: 1 },
  );
  if (!mandate) {
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      `sepaDirectDebitTransaction.iban: is required: shopper ${shopper.id} has no stored SEPA account${
        account?.ibanFirstFour || account?.ibanLastFour ? ' with those first and last four characters' : ''
      }`,
      { name: 'sepaDirectDebitTransaction.iban' },
    );
  }
  return mandateIban(ctx.vault, mandate);
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

const languagesOf = (language: SepaLanguage | undefined) => (language ? [language] : sepaLanguages);

/** A pre-notification in every supported language, or in the one asked for; without one, the template. */
export function preNotificationTranslations(
  language: SepaLanguage | undefined,
  notification?: PreNotification,
): SepaTranslations {
  return {
    translations: languagesOf(language).map((language) => ({
      language,
      translationText: preNotificationText(language, notification),
    })),
  };
}

/**
 * A debit's pre-notification text; without a transaction id, the template with its placeholders (the
 * original's Tools API). A SEPA subscription's next debit is recurring's (recurring.preNotification).
 */
export async function getPreNotification(
  ctx: MerchantContext,
  input: z.output<typeof transactionPreNotificationInput>,
): Promise<SepaTranslations> {
  if (input.transactionId === undefined) return preNotificationTranslations(input.language);
  const debit = await loadDebit(ctx.em, ctx.merchantId, { transactionId: input.transactionId });
  // An ACH debit has no pre-notification: no SEPA debit has its id.
  if (debit?.mandate.scheme !== 'SEPA') throw transactionNotFound(input);
  return preNotificationTranslations(input.language, notificationOf(debit, debit.mandate));
}

/** The mandate text a shopper must be shown before a debit is submitted. */
export function getMandateText(input: z.output<typeof mandateTextInput>): SepaTranslations {
  return {
    translations: languagesOf(input.language).map((language) => ({
      language,
      translationText: mandateText(language),
    })),
  };
}

const notRefundable: Record<Exclude<SepaStatus, 'SUCCESS'>, string> = {
  PENDING: 'the debit is still PENDING: only a collected (SUCCESS) debit can be refunded',
  FAIL: 'the debit failed: nothing was collected to refund',
  REFUNDED: 'the debit is already refunded in full',
};

/**
 * A merchant's refund of a collected debit, whole or in parts, never beyond what was collected, divided
 * between the merchant and the vendors of a split debit as a card refund is. The debit is locked, so refunds
 * of it and its settlement run one at a time.
 */
export async function refundSepaDebit(
  ctx: MerchantContext,
  input: RefundRequest,
  followUp?: RefundFollowUp,
): Promise<PublicRefund> {
  return inTransaction(ctx.em, async (em) => {
    const debit = await loadDebit(em, ctx.merchantId, input, true);
    if (!debit) throw transactionNotFound(input);
    const { currency } = debit;
    if (debit.status !== 'SUCCESS') {
      throw new DomainError('REFUND_AMOUNT_EXCEEDS_BALANCE', notRefundable[debit.status], {
        name: 'transactionId',
        messageValue: String(debit.id),
      });
    }
    const balance = debit.amountMinor - debit.refundedMinor;
    const amountMinor = input.amount === undefined ? balance : amountInMinorUnits(input.amount, currency);
    if (amountMinor > balance) {
      throw new DomainError(
        'REFUND_AMOUNT_EXCEEDS_BALANCE',
        `the refundable balance is ${minorToAmount(balance, currency)} ${currency}`,
        { name: 'amount', ...(input.amount ? { messageValue: input.amount } : {}) },
      );
    }
    const vendorParts = await takeVendorRefunds(
      em,
      ctx.merchantId,
      { id: debit.id, currency, capturedMinor: debit.amountMinor },
      { amountMinor, balanceMinor: balance },
      input,
    );
    const now = await callNow(ctx, em);
    debit.refundedMinor += amountMinor;
    if (debit.refundedMinor === debit.amountMinor) {
      debit.status = 'REFUNDED';
      debit.nextActionAt = null; // nothing left for the bank to return
      debit.returnCode = null; // nor a return to show
    }
    const refund = em.create(SepaRefund, {
      merchantId: ctx.merchantId,
      debit,
      amountMinor,
      ...refundColumns(input, currency),
      returned: false,
    });
    await em.flush();
    if (vendorParts) await recordVendorRefunds(em, refund.id, vendorParts);
    await recordEvent(
      ctx,
      em,
      'Refund',
      sepaEventParameters(eventDebit(debit), debit.mandate, amountMinor, now),
    );
    await followUp?.(em, debit.id);
    await recordPaymentChange(ctx, em, 'refund', debit.id);
    const answer = {
      ...refundAnswer(refund, debit.id, currency, now),
      ...(vendorParts ? presentVendorRefunds(vendorParts, currency) : {}),
    };
    await ctx.keyed?.record(em, answer); // a keyed refund's answer commits with it (idempotency, phased)
    return answer;
  });
}
