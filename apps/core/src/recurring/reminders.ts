import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DomainError,
  type SepaLanguage,
  type SepaTranslations,
  type subscriptionPreNotificationInput,
  subscriptionPreNotificationPath,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { addBusinessDays } from '../sepa/business-days.ts';
import { nextStepAt } from '../sepa/debits.ts';
import { type PreNotification, preNotificationText } from '../sepa/texts.ts';
import { preNotificationTranslations } from '../sepa/translations.ts';
import { Subscription } from './entities.ts';
import { recordSubscriptionEvent, type SubscriptionFacts, subscriptionReminderParameters } from './events.ts';
import { claimReminder } from './queries.ts';
import { recurringAmountOf } from './terms.ts';

/**
 * SEPA subscriptions: the shopper is told of each debit before it is submitted (docs/conformance.md, Recurring billing: at
 * least 5 days). The pre-notification of the next debit (amount, collection date, mandate, in every
 * language of the one-time debits) can be read at any time, and a SubscriptionReminder IPN carrying it is
 * sent 6 TARGET business days before the debit is submitted on its charge date: one more than the 5 asked,
 * so a worker that polls each minute is never late. A clock advance past the reminder's time sends it
 * dated when it fell due, before the debit it announces.
 */
export const reminderLeadBusinessDays = 6;

/** Midnight UTC of a charge date (yyyy-mm-dd): when that date's charge falls due. */
export const chargeDateStart = (chargeDate: string) => new Date(`${chargeDate}T00:00:00.000Z`);

/** When the reminder of the debit submitted on `chargeDate` falls due. */
export function reminderAt(chargeDate: string): Date {
  return addBusinessDays(chargeDateStart(chargeDate), -reminderLeadBusinessDays);
}

/** The next debit of a SEPA subscription, as its pre-notification tells it. */
export interface NextDebit {
  amountMinor: number;
  currency: string;
  chargeDate: string;
  mandateId: string;
  ibanLastFour: string;
}

/** The pre-notification of a debit submitted on its charge date, collected when the bank answers. */
export function nextDebitNotification(
  settings: Pick<MerchantContext, 'mode' | 'sepa'>,
  debit: NextDebit,
): PreNotification {
  return {
    amountMinor: debit.amountMinor,
    currency: debit.currency,
    collectionDate: nextStepAt(settings, chargeDateStart(debit.chargeDate), 'SEPA'),
    mandateId: debit.mandateId,
    ibanLastFour: debit.ibanLastFour,
  };
}

/**
 * Sends the reminder of the debit on `debit.chargeDate`, dated `at`, once: the subscription's
 * reminded_charge_date moves to that date in the same transaction as the event, only if it was not there.
 */
export async function sendReminder(
  ctx: MerchantContext,
  em: EntityManager,
  subscription: SubscriptionFacts,
  debit: NextDebit,
  at: Date,
  language: SepaLanguage = 'en',
): Promise<void> {
  const claimed = await executeParameterized(em, claimReminder, [
    subscription.id,
    ctx.merchantId,
    debit.chargeDate,
  ]);
  if (claimed.length === 0) return;
  await recordSubscriptionEvent(
    ctx,
    em,
    'SubscriptionReminder',
    subscriptionReminderParameters(subscription, debit.chargeDate, at, {
      text: preNotificationText(language, nextDebitNotification(ctx, debit)),
      translationRef: subscriptionPreNotificationPath(subscription.id),
      mandateId: debit.mandateId,
    }),
  );
}

/**
 * The pre-notification of a SEPA subscription's next debit (GET /translations/sepa/prenotification with
 * subscriptionid), in every language or the one asked for.
 */
export async function subscriptionPreNotification(
  ctx: MerchantContext,
  input: z.output<typeof subscriptionPreNotificationInput>,
): Promise<SepaTranslations> {
  return preNotificationTranslations(input.language, await nextSubscriptionDebit(ctx, input.subscriptionId));
}

/** The next debit of the merchant's subscription, ACTIVE, paying by mandate, with a charge coming. */
async function nextSubscriptionDebit(ctx: MerchantContext, subscriptionId: number): Promise<PreNotification> {
  const subscription = await ctx.em.findOne(
    Subscription,
    { id: subscriptionId, merchantId: ctx.merchantId },
    { populate: ['plan', 'sepaMandate'] },
  );
  if (!subscription) {
    throw new DomainError('SUBSCRIPTION_NOT_FOUND', `subscription ${subscriptionId} was not found`, {
      name: 'subscriptionId',
      messageValue: String(subscriptionId),
    });
  }
  const { sepaMandate: mandate, nextChargeDate } = subscription;
  if (mandate?.scheme !== 'SEPA' || !nextChargeDate || subscription.status !== 'ACTIVE') {
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      `subscriptionId: subscription ${subscriptionId} has no SEPA debit coming`,
      { name: 'subscriptionId', messageValue: String(subscriptionId) },
    );
  }
  return nextDebitNotification(ctx, {
    amountMinor: recurringAmountOf(subscription),
    currency: subscription.currency,
    chargeDate: nextChargeDate,
    mandateId: mandate.reference,
    ibanLastFour: mandate.ibanLastFour,
  });
}
