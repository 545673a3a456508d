import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  amountInMinorUnits,
  type Chargeback,
  type ChargebackList,
  type ChargebackStatus,
  type chargebackListQuery,
  chargebackTransitions,
  type createSandboxChargebackInput,
  DomainError,
  type EvidenceMediaType,
  minorToAmount,
  minorToDecimal,
  type moveSandboxChargebackInput,
  representableStatuses,
  type uploadEvidenceInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import { CardTransaction } from '../cards/entities.ts';
import { transactionEventParameters } from '../cards/lifecycle.ts';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { recordEvent } from '../ipn/events.ts';
import { recordAudit } from '../security/audit/trail.ts';
import { evidenceMediaType } from './evidence.ts';
import {
  type ChargebackRow,
  chargebackForUpdate,
  chargebackOfDispute,
  chargebacksOf,
  evidenceOf,
  insertEvidence,
  openChargeback,
  setChargebackStatus,
  transactionDisputed,
} from './queries.ts';

/** A dispute as its source reports it: the processor's, or a sandbox rehearsal (account null). */
export interface DisputeReport {
  transactionId: number;
  accountId: number | null;
  /** The dispute's own reference at its source: every stage of one dispute carries it. */
  reference: string;
  amountMinor: number;
  currency: string;
  reasonCode: string | null;
  reason: string | null;
}

const notFound = (id: number | string) =>
  new DomainError('CHARGEBACK_NOT_FOUND', `no chargeback with chargebackId ${id} was found`);

function disputedTransaction(em: EntityManager, merchantId: number, id: number) {
  return em.findOneOrFail(CardTransaction, { id, merchantId }, { populate: ['card', 'shopper'] });
}

/**
 * The Chargeback and ChargebackStatusChanged IPNs' parameters: the disputed sale's card event parameters
 * at the disputed amount, and the dispute's. reversalRefNum and reversalReason are the original's names for
 * the dispute's reference and reason; the chargeback* ones are ours (docs/chargebacks.md, IPNs).
 */
async function disputeParameters(
  em: EntityManager,
  ctx: MerchantContext,
  row: ChargebackRow,
  status: ChargebackStatus,
  now: Date,
) {
  const transaction = await disputedTransaction(em, ctx.merchantId, Number(row.transaction_id));
  const amountMinor = Number(row.amount_minor);
  return {
    ...transactionEventParameters(transaction, amountMinor, now),
    reversalRefNum: row.id,
    reversalReason: row.reason ?? '',
    chargebackAmount: minorToDecimal(amountMinor, row.currency),
    chargebackCurrency: row.currency,
    chargebackStatus: status,
    chargebackReasonCode: row.reason_code ?? '',
  };
}

/**
 * Opens the dispute once (a repeated report opens nothing) with its Chargeback IPN, in the caller's
 * transaction. Returns the dispute's row, locked, whether opened now or before.
 */
export async function openDispute(
  ctx: MerchantContext,
  em: EntityManager,
  report: DisputeReport,
  status: ChargebackStatus = 'NEW',
): Promise<ChargebackRow> {
  const now = await callNow(ctx, em);
  const [opened] = await executeParameterized<{ id: string }>(em, openChargeback, [
    ctx.merchantId,
    report.transactionId,
    report.accountId,
    report.reference,
    report.amountMinor,
    report.currency,
    report.reasonCode,
    report.reason,
    status,
    now,
  ]);
  const [row] = await executeParameterized<ChargebackRow>(em, chargebackOfDispute, [
    ctx.merchantId,
    report.accountId,
    report.reference,
  ]);
  if (!row) throw new Error('a dispute just opened or found must be readable');
  if (opened) await recordEvent(ctx, em, 'Chargeback', await disputeParameters(em, ctx, row, status, now));
  return row;
}

/**
 * Moves a locked chargeback to `status` with the ChargebackStatusChanged IPN, if the move is one the
 * lifecycle allows (contracts: chargebackTransitions). Refused moves throw INVALID_STATUS when `strict`
 * (a merchant's request); a processor's stage that came late or twice is ignored instead.
 */
export async function moveDispute(
  ctx: MerchantContext,
  em: EntityManager,
  row: ChargebackRow,
  status: ChargebackStatus,
  strict: boolean,
): Promise<boolean> {
  const from = row.status as ChargebackStatus;
  if (!chargebackTransitions[from].includes(status)) {
    if (!strict) return false;
    throw new DomainError('INVALID_STATUS', `a chargeback in status ${from} cannot move to ${status}`, {
      name: 'status',
      messageValue: status,
    });
  }
  const now = await callNow(ctx, em);
  await executeParameterized(em, setChargebackStatus, [row.id, status, now]);
  await recordEvent(ctx, em, 'ChargebackStatusChanged', {
    ...(await disputeParameters(em, ctx, row, status, now)),
    previousChargebackStatus: from,
  });
  row.status = status;
  return true;
}

/** A processor's dispute stage: opens the dispute if this is its first word, then moves it there. */
export async function reportDisputeStage(
  ctx: MerchantContext,
  em: EntityManager,
  report: DisputeReport,
  stage: ChargebackStatus,
): Promise<void> {
  const opening = stage === 'PENDING_MERCHANT_RESPONSE' ? stage : 'NEW';
  const row = await openDispute(ctx, em, report, opening);
  if (row.status !== stage && stage !== 'NEW') await moveDispute(ctx, em, row, stage, false);
}

function sandboxOnly(ctx: MerchantContext): void {
  if (ctx.mode !== 'sandbox')
    throw new DomainError('RESOURCE_NOT_FOUND', 'sandbox chargebacks exist in sandbox mode only');
}

/**
 * A rehearsal dispute of the merchant's own captured card sale (ours, sandbox only): at most its captured
 * amount, one per sale. The sale's amounts never change; the reports show the dispute.
 */
export async function createSandboxChargeback(
  ctx: MerchantContext,
  input: z.output<typeof createSandboxChargebackInput>,
): Promise<Chargeback> {
  sandboxOnly(ctx);
  const id = await inTransaction(ctx.em, async (em) => {
    const transaction = await em.findOne(CardTransaction, {
      id: Number(input.transactionId),
      merchantId: ctx.merchantId,
    });
    if (!transaction) {
      throw new DomainError(
        'TRANSACTION_NOT_FOUND',
        `no transaction with transactionId ${input.transactionId} was found`,
      );
    }
    if (transaction.status !== 'CAPTURED') {
      throw new DomainError('INVALID_STATUS', 'only a captured card sale can be disputed', {
        name: 'transactionId',
        messageValue: input.transactionId,
      });
    }
    const amountMinor =
      input.amount === undefined
        ? transaction.capturedMinor
        : amountInMinorUnits(input.amount, transaction.currency);
    if (amountMinor > transaction.capturedMinor) {
      throw new DomainError('VALIDATION_GENERAL_FAILURE', 'amount: must not exceed the captured amount', {
        name: 'amount',
        messageValue: input.amount ?? '',
      });
    }
    if ((await executeParameterized(em, transactionDisputed, [ctx.merchantId, transaction.id])).length > 0) {
      throw new DomainError('INVALID_STATUS', 'the transaction is disputed already', {
        name: 'transactionId',
        messageValue: input.transactionId,
      });
    }
    const row = await openDispute(ctx, em, {
      transactionId: transaction.id,
      accountId: null,
      reference: `SANDBOX-${randomUUID()}`,
      amountMinor,
      currency: transaction.currency,
      reasonCode: input.reasonCode ?? null,
      reason: input.reason ?? null,
    });
    return Number(row.id);
  });
  return getChargeback(ctx, id);
}

/** The issuer's part in the sandbox: asks for more, or decides (ours, sandbox only). */
export async function moveSandboxChargeback(
  ctx: MerchantContext,
  input: z.output<typeof moveSandboxChargebackInput>,
): Promise<Chargeback> {
  sandboxOnly(ctx);
  await inTransaction(ctx.em, async (em) => {
    const [row] = await executeParameterized<ChargebackRow>(em, chargebackForUpdate, [
      input.chargebackId,
      ctx.merchantId,
    ]);
    if (!row) throw notFound(input.chargebackId);
    await moveDispute(ctx, em, row, input.status, true);
  });
  return getChargeback(ctx, input.chargebackId);
}

/**
 * The merchant's representment: one evidence file, its type read from its content, kept in the database
 * and never served back. The first file moves the dispute to MERCHANT_RESPONDED; the original takes one file
 * per case in production, so a second one is refused in live mode (the sandbox takes several).
 */
export async function uploadEvidence(
  ctx: MerchantContext,
  input: z.output<typeof uploadEvidenceInput>,
): Promise<Chargeback> {
  const content = Buffer.from(input.content, 'base64');
  await inTransaction(ctx.em, async (em) => {
    const [row] = await executeParameterized<ChargebackRow>(em, chargebackForUpdate, [
      input.chargebackId,
      ctx.merchantId,
    ]);
    if (!row) throw notFound(input.chargebackId);
    const status = row.status as ChargebackStatus;
    if (!representableStatuses.includes(status) || (status === 'MERCHANT_RESPONDED' && ctx.mode === 'live')) {
      throw new DomainError('INVALID_STATUS', `a chargeback in status ${status} takes no more evidence`);
    }
    const mediaType: EvidenceMediaType = evidenceMediaType(content, ctx.mode);
    const now = await callNow(ctx, em);
    await executeParameterized(em, insertEvidence, [
      ctx.merchantId,
      row.id,
      mediaType,
      content.length,
      createHash('sha256').update(content).digest('hex'),
      content,
      now,
    ]);
    if (status !== 'MERCHANT_RESPONDED') await moveDispute(ctx, em, row, 'MERCHANT_RESPONDED', true);
    if (ctx.origin) {
      await recordAudit(em, ctx.origin, {
        merchantId: ctx.merchantId,
        action: 'chargeback-evidence.upload',
        object: `chargeback:${row.id}`,
        outcome: 'success',
      });
    }
  });
  return getChargeback(ctx, input.chargebackId);
}

interface EvidenceRow {
  id: string;
  chargeback_id: string;
  media_type: EvidenceMediaType;
  size_bytes: number;
  sha256: string;
  created_at: string;
}

async function present(ctx: MerchantContext, rows: ChargebackRow[]): Promise<Chargeback[]> {
  const evidence = await executeParameterized<EvidenceRow>(ctx.em, evidenceOf, [
    ctx.merchantId,
    rows.map((row) => row.id),
  ]);
  return rows.map((row) => ({
    chargebackId: Number(row.id),
    transactionId: row.transaction_id,
    ...(row.merchant_transaction_id ? { merchantTransactionId: row.merchant_transaction_id } : {}),
    amount: minorToAmount(Number(row.amount_minor), row.currency),
    currency: row.currency,
    status: row.status as ChargebackStatus,
    ...(row.reason_code ? { reasonCode: row.reason_code } : {}),
    ...(row.reason ? { reason: row.reason } : {}),
    source: row.processor_account_id === null ? 'SANDBOX' : 'PROCESSOR',
    chargebackDate: new Date(row.created_at).toISOString(),
    lastUpdateDate: new Date(row.updated_at).toISOString(),
    evidence: evidence
      .filter((file) => file.chargeback_id === row.id)
      .map((file) => ({
        evidenceId: Number(file.id),
        mediaType: file.media_type,
        size: file.size_bytes,
        sha256: file.sha256,
        uploadDate: new Date(file.created_at).toISOString(),
      })),
  }));
}

export async function getChargeback(ctx: MerchantContext, chargebackId: number): Promise<Chargeback> {
  const rows = await executeParameterized<ChargebackRow>(ctx.em, chargebacksOf, [
    ctx.merchantId,
    chargebackId,
    null,
  ]);
  const [chargeback] = await present(ctx, rows);
  if (!chargeback) throw notFound(chargebackId);
  return chargeback;
}

export async function listChargebacks(
  ctx: MerchantContext,
  query: z.output<typeof chargebackListQuery>,
): Promise<ChargebackList> {
  const rows = await executeParameterized<ChargebackRow>(ctx.em, chargebacksOf, [
    ctx.merchantId,
    null,
    query.transactionId ?? null,
  ]);
  return { chargebacks: await present(ctx, rows) };
}
