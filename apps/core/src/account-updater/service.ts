import {
  type AccountUpdate,
  type AccountUpdateBatch,
  type AccountUpdateCard,
  brandOf,
  type CardBrand,
  type CreateAccountUpdateBatch,
  DomainError,
} from '@paywire/contracts';
import { addSeconds, callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { recordChange } from '../security/audit/trail.ts';
import { batchOf, insertBatch, insertLines, linesOf } from './queries.ts';
import {
  outcomeAnswers,
  renewedExpiry,
  replacementNumber,
  sandboxOutcome,
  submissionAnswer,
  submissionAnswers,
  type UpdateOutcome,
} from './sandbox-updater.ts';

/** The original's answers are ready five days after a batch is sent: by the merchant's clock here. */
export const answerDelaySeconds = 5 * 24 * 60 * 60;

/** The batch's own answer: the original's for a batch whose format it accepted. */
const validFormat = { responseCode: '000', responseMessage: 'Valid Format' };

/** A line as stored and read back. */
interface LineRow {
  merchant_updater_id: string;
  card_type: CardBrand | null;
  last_four: string;
  expiration_month: string;
  expiration_year: string;
  submission_code: string;
  outcome: UpdateOutcome | null;
  updated_card: AccountUpdateCard | null;
}

const cardOf = (card: {
  lastFour: string;
  brand: CardBrand | null | undefined;
  expirationMonth: string;
  expirationYear: string;
}): AccountUpdateCard => ({
  creditCard: {
    cardLastFourDigits: card.lastFour,
    ...(card.brand ? { cardType: card.brand } : {}),
    expirationMonth: card.expirationMonth,
    expirationYear: card.expirationYear,
  },
});

/** The card as the network's answer leaves it, decided when it is received and shown once the batch is due. */
function updatedCard(number: string, original: AccountUpdateCard, outcome: UpdateOutcome): AccountUpdateCard {
  const { creditCard } = original;
  if (outcome === 'EXPIRY_CHANGED') return { creditCard: { ...creditCard, ...renewedExpiry(creditCard) } };
  if (outcome !== 'NUMBER_CHANGED') return original;
  const replacement = replacementNumber(number);
  return {
    creditCard: { ...creditCard, cardLastFourDigits: replacement.slice(-4), ...renewedExpiry(creditCard) },
  };
}

/** A received card's line: no number kept, its fingerprint finds the vaulted cards its answer updates. */
function lineOf(
  ctx: MerchantContext,
  update: CreateAccountUpdateBatch['accountUpdate'][number],
  position: number,
  now: Date,
) {
  const { cardNumber: number, expirationMonth, expirationYear } = update.originalCard.creditCard;
  const brand = brandOf(number);
  const original = cardOf({ lastFour: number.slice(-4), brand, expirationMonth, expirationYear });
  const received = submissionAnswer({ number, brand, expirationYear }, now);
  const approved = received === submissionAnswers.approved;
  const outcome = approved ? sandboxOutcome(number) : null;
  return {
    position,
    merchant_updater_id: update.merchantUpdaterId,
    card_fingerprint: approved ? ctx.vault.fingerprint(number) : null,
    card_type: brand ?? null,
    last_four: original.creditCard.cardLastFourDigits,
    expiration_month: expirationMonth,
    expiration_year: expirationYear,
    submission_code: received.code,
    outcome,
    updated_card: outcome ? updatedCard(number, original, outcome) : null,
  };
}

/** A line as answers show it: as received, or once the batch is answered, with the network's answer. */
function presentLine(row: LineRow, answered: boolean): AccountUpdate {
  const originalCard = cardOf({
    lastFour: row.last_four,
    brand: row.card_type,
    expirationMonth: row.expiration_month,
    expirationYear: row.expiration_year,
  });
  if (answered && row.outcome && row.updated_card) {
    const answer = outcomeAnswers[row.outcome];
    return {
      merchantUpdaterId: row.merchant_updater_id,
      updateResponseCode: answer.code,
      updateResponseMessage: answer.message,
      originalCard,
      updatedCard: row.updated_card,
    };
  }
  const received =
    Object.values(submissionAnswers).find((answer) => answer.code === row.submission_code) ??
    submissionAnswers.approved;
  return {
    merchantUpdaterId: row.merchant_updater_id,
    updateResponseCode: received.code,
    updateResponseMessage: received.message,
    originalCard,
  };
}

/** Create Account Updater: the batch is kept, each card answered as received; the network answers later. */
export async function submitBatch(
  ctx: MerchantContext,
  input: CreateAccountUpdateBatch,
): Promise<AccountUpdateBatch> {
  return inTransaction(ctx.em, async (em) => {
    const now = await callNow(ctx, em);
    const [batch] = await executeParameterized<{ id: string }>(em, insertBatch, [
      ctx.merchantId,
      input.accountUpdateBatchId,
      now,
      addSeconds(now, answerDelaySeconds),
    ]);
    if (!batch)
      throw new DomainError('VALIDATION_GENERAL_FAILURE', 'accountUpdateBatchId: is already used', {
        name: 'accountUpdateBatchId',
        messageValue: input.accountUpdateBatchId,
      });
    const lines = input.accountUpdate.map((update, position) => lineOf(ctx, update, position, now));
    await executeParameterized(em, insertLines, [batch.id, ctx.merchantId, JSON.stringify(lines)]);
    await recordChange(ctx, em, 'account-update.submit', `account-update-batch:${batch.id}`);
    return {
      accountUpdateBatchId: input.accountUpdateBatchId,
      ...validFormat,
      accountUpdate: lines.map((line) => presentLine(line, false)),
    };
  });
}

/** Retrieve Account Updater: the batch's answers, once they are due and the updater has applied them. */
export async function retrieveBatch(ctx: MerchantContext, batchId: string): Promise<AccountUpdateBatch> {
  const [batch] = await executeParameterized<{ id: string; answered_at: Date | null }>(ctx.em, batchOf, [
    ctx.merchantId,
    batchId,
  ]);
  if (!batch)
    throw new DomainError('ACCOUNT_UPDATE_BATCH_NOT_FOUND', `account update batch ${batchId} was not found`);
  if (!batch.answered_at)
    throw new DomainError(
      'ACCOUNT_UPDATE_FILE_NOT_AVAILABLE',
      `the account updater file of batch ${batchId} is not yet available: answers are ready five days after the batch was sent`,
    );
  const rows = await executeParameterized<LineRow>(ctx.em, linesOf, [batch.id]);
  return {
    accountUpdateBatchId: batchId,
    ...validFormat,
    accountUpdate: rows.map((row) => presentLine(row, true)),
  };
}
