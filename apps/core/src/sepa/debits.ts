import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import { type TransactionIds, type TransactionMetaData, transactionIdOf } from '@paywire/contracts';
import { addSeconds } from '../clock/clock.ts';
import type { MerchantContext, Mode } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { duplicateMerchantTransactionId } from '../errors.ts';
import { recordEvent } from '../ipn/events.ts';
import { claimMerchantTransactionId } from '../payments/queries.ts';
import type { Shopper } from '../shoppers/entities.ts';
import { liveCollectionBusinessDays, type SepaSettings } from './bank.ts';
import { addBusinessDays, isFederalReserveBusinessDay, isTargetBusinessDay } from './business-days.ts';
import { type DebitCurrency, type DebitScheme, SepaDebit, type SepaMandate } from './entities.ts';
import { eventDebit, sepaEventParameters } from './events.ts';
import { liveMandate, mandateFor } from './mandates.ts';
import { debitView, type SepaDebitView } from './presentation.ts';

/** Debits, SEPA or ACH: opening one, its collection date, finding one. */

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
  return debitView(debit, mandate);
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

/** The merchant's debit by its public id or the merchant's own, with its mandate; locked for a change when asked. */
export async function loadDebit(em: EntityManager, merchantId: number, by: TransactionIds, lock = false) {
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
  return debit ? debitView(debit, debit.mandate) : null;
}
