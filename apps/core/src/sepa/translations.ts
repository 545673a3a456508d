import {
  type mandateTextInput,
  type SepaLanguage,
  type SepaTranslations,
  sepaLanguages,
  type transactionPreNotificationInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { transactionNotFound } from '../errors.ts';
import { loadDebit } from './debits.ts';
import { notificationOf } from './presentation.ts';
import { mandateText, type PreNotification, preNotificationText } from './texts.ts';

/** The SEPA texts a merchant shows its shoppers, in every supported language or the one asked for. */

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
