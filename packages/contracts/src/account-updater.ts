import { z } from 'zod';
import { expirationMonthInput, expirationYearInput } from './card-input.ts';
import type { CardBrand } from './cards.ts';
import { refuseRepeats, text } from './primitives.ts';

/**
 * The account updater (see docs/account-updater.md): the original's Create and Retrieve Account Updater, a
 * batch of cards sent under the merchant's own batch id and answered, card by card, days later.
 */

/** The original's record size limit per batch. */
export const ACCOUNT_UPDATE_BATCH_LIMIT = 2000;

/** The original's limit on a batch id. */
const batchIdInput = text(25);

export const accountUpdateBatchIdInput = z.object({ accountUpdateBatchId: batchIdInput });

/**
 * Only the number's form is checked here: a number that fails the Luhn check, an expiry in the past or a
 * brand the updater does not serve is answered in the batch, card by card, with the original's codes.
 */
const originalCardInput = z.object({
  creditCard: z.object({
    cardNumber: z
      .string()
      .trim()
      .regex(/^\d{12,19}$/, 'must be 12 to 19 digits'),
    expirationMonth: expirationMonthInput,
    expirationYear: expirationYearInput,
  }),
});

export const createAccountUpdateBatchInput = z
  .object({
    accountUpdateBatchId: batchIdInput,
    accountUpdate: z
      .array(
        z.object({
          merchantUpdaterId: z
            .string()
            .trim()
            .min(1, 'is required')
            .max(100, 'must be at most 100 characters'),
          originalCard: originalCardInput,
        }),
      )
      .min(1, 'needs at least one card')
      .max(ACCOUNT_UPDATE_BATCH_LIMIT, `allows at most ${ACCOUNT_UPDATE_BATCH_LIMIT} cards`),
  })
  .superRefine((batch, ctx) =>
    refuseRepeats(
      ctx,
      batch.accountUpdate,
      { list: 'accountUpdate', property: 'merchantUpdaterId' },
      (update) => update.merchantUpdaterId,
      'is used twice in the batch',
    ),
  );

export type CreateAccountUpdateBatch = z.output<typeof createAccountUpdateBatchInput>;

/** A card as answers show it: never its number, its last four digits. */
export interface AccountUpdateCard {
  creditCard: {
    cardLastFourDigits: string;
    /** None for a number of no known brand. */
    cardType?: CardBrand;
    expirationMonth: string;
    expirationYear: string;
  };
}

export interface AccountUpdate {
  merchantUpdaterId: string;
  updateResponseCode: string;
  updateResponseMessage: string;
  originalCard: AccountUpdateCard;
  /** Once the batch is answered: the card as it is now (unchanged cards repeat the original). */
  updatedCard?: AccountUpdateCard;
}

export interface AccountUpdateBatch {
  accountUpdateBatchId: string;
  responseCode: string;
  responseMessage: string;
  accountUpdate: AccountUpdate[];
}
