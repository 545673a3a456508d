import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccountUpdateCard } from '@paywire/contracts';
import type { CoreServices, MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { type EventParameters, ipnDate, recordEvent } from '../ipn/events.ts';
import { workerContext } from '../jobs/context.ts';
import { accountUpdaterQueue, startRuns } from '../jobs/queues.ts';
import { recordChange } from '../security/audit/trail.ts';
import { bindings } from '../security/card-vault.ts';
import {
  cardsToUpdate,
  claimDueBatch,
  closeCard,
  deleteExpiredBatches,
  markAnswered,
  renewCard,
  replaceCard,
} from './queries.ts';
import { outcomeAnswers, renewedExpiry, replacementNumber, type UpdateOutcome } from './sandbox-updater.ts';

/**
 * The updater's answers, applied when due by each merchant's clock: one pg-boss job runs at a time (a
 * `stately` queue), every minute and whenever a sandbox clock moves. Each due batch is answered in one
 * transaction that holds its row (FOR UPDATE SKIP LOCKED): the vaulted cards it names are updated in place,
 * their events recorded through the IPN outbox, and the batch marked answered, together or not at all.
 * Nothing outside is called: the sandbox's network decided each card's answer when it was received.
 */

interface DueBatch {
  id: string;
  merchant_id: number;
  merchant_now: Date;
}

/** A vaulted card one of the batch's answers changes, locked. */
interface CardRow {
  line_id: string;
  outcome: Exclude<UpdateOutcome, 'NO_CHANGE'>;
  card_id: string;
  shopper_id: number;
  fingerprint: string;
  sealed_number: string;
  brand: string;
  last_four: string;
  expiration_month: string;
  expiration_year: string;
  merchant_shopper_id: string | null;
  linked_subscriptions: string | null;
}

/** The card as the answer leaves it in the vault; none when the vault keeps it as it was. */
async function applyToVault(
  ctx: MerchantContext,
  em: EntityManager,
  card: CardRow,
  now: Date,
): Promise<AccountUpdateCard['creditCard'] | null> {
  const current = {
    cardLastFourDigits: card.last_four,
    cardType: card.brand as AccountUpdateCard['creditCard']['cardType'],
    expirationMonth: card.expiration_month,
    expirationYear: card.expiration_year,
  };
  if (card.outcome === 'CLOSED') {
    await executeParameterized(em, closeCard, [card.card_id, now]);
    return null;
  }
  if (card.outcome === 'CONTACT_CARDHOLDER') return null;
  const expiry = renewedExpiry({
    expirationMonth: card.expiration_month,
    expirationYear: card.expiration_year,
  });
  if (card.outcome === 'EXPIRY_CHANGED') {
    await executeParameterized(em, renewCard, [card.card_id, expiry.expirationMonth, expiry.expirationYear]);
    return { ...current, ...expiry };
  }
  const number = replacementNumber(
    ctx.vault.open(card.sealed_number, bindings.card(ctx.merchantId, card.fingerprint)),
  );
  const fingerprint = ctx.vault.fingerprint(number);
  const [replaced] = await executeParameterized(em, replaceCard, [
    card.card_id,
    fingerprint,
    ctx.vault.seal(number, bindings.card(ctx.merchantId, fingerprint)),
    number.slice(-4),
    expiry.expirationMonth,
    expiry.expirationYear,
  ]);
  return replaced ? { ...current, cardLastFourDigits: number.slice(-4), ...expiry } : null;
}

/** The original's AccountUpdater parameters for a vaulted card the batch's answer names. */
function accountUpdaterParameters(
  card: CardRow,
  updated: AccountUpdateCard['creditCard'] | null,
  now: Date,
): EventParameters {
  return {
    accountId: card.shopper_id,
    sellerShopperId: card.merchant_shopper_id ?? '',
    accountUpdaterLineId: card.line_id,
    linkedSubscriptions: card.linked_subscriptions ?? '',
    creditCardType: card.brand,
    originalCreditCardLast4Digits: card.last_four,
    originalCreditCardExpirationMonth: card.expiration_month,
    originalCreditCardExpirationYear: card.expiration_year,
    updatedCreditCardType: updated?.cardType ?? '',
    updatedCreditCardLast4Digits: updated?.cardLastFourDigits ?? '',
    updatedCreditCardExpirationMonth: updated?.expirationMonth ?? '',
    updatedCreditCardExpirationYear: updated?.expirationYear ?? '',
    responseMessage: outcomeAnswers[card.outcome].message,
    responseDate: ipnDate(now),
  };
}

/** Ours (the reference lists no parameters for it): a vaulted card its issuer closed, and what charged it. */
function statusChangedParameters(card: CardRow, now: Date): EventParameters {
  return {
    accountId: card.shopper_id,
    sellerShopperId: card.merchant_shopper_id ?? '',
    linkedSubscriptions: card.linked_subscriptions ?? '',
    creditCardType: card.brand,
    creditCardLastFourDigits: card.last_four,
    creditCardExpDate: `${card.expiration_month}/${card.expiration_year}`,
    creditCardStatus: 'CLOSED',
    transactionDate: ipnDate(now),
  };
}

/** Answers one due batch; false when none was due (or every due one is being answered by another run). */
export async function answerDueBatch(services: CoreServices): Promise<boolean> {
  return inTransaction(services.orm.em.fork(), async (em) => {
    const [batch] = await executeParameterized<DueBatch>(em, claimDueBatch, [
      new Date(),
      services.mode === 'live',
    ]);
    if (!batch) return false;
    const now = new Date(batch.merchant_now);
    const ctx = workerContext(services, batch.merchant_id, em);
    const rows = await executeParameterized<CardRow>(em, cardsToUpdate, [batch.id]);
    // A number sent twice in the batch is answered twice, and changes its vaulted cards once.
    const cards = [...new Map(rows.map((row) => [row.card_id, row])).values()];
    for (const card of cards) {
      const updated = await applyToVault(ctx, em, card, now);
      if (updated || card.outcome === 'CLOSED')
        await recordChange(ctx, em, 'shopper-card.account-update', `card:${card.card_id}`);
      await recordEvent(ctx, em, 'AccountUpdater', accountUpdaterParameters(card, updated, now));
      if (card.outcome === 'CLOSED')
        await recordEvent(ctx, em, 'CcStatusChanged', statusChangedParameters(card, now));
    }
    await executeParameterized(em, markAnswered, [batch.id, now]);
    return true;
  });
}

/** Answers every due batch, then forgets answers past the 45 days the original keeps them. */
export async function answerDue(services: CoreServices): Promise<void> {
  while (await answerDueBatch(services));
  await executeParameterized(services.orm.em.fork(), deleteExpiredBatches, [
    new Date(),
    services.mode === 'live',
  ]);
}

export async function startAccountUpdaterWorkers(
  services: CoreServices,
  onError: (error: unknown) => void,
): Promise<void> {
  await startRuns(services.jobs, accountUpdaterQueue, 600, () => answerDue(services), onError);
}
