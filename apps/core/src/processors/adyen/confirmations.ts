import type { EntityManager } from '@mikro-orm/postgresql';
import { executeParameterized } from '../../db/wire.ts';
import type { NotificationRequestItem } from './hmac.ts';
import { authorisationOfAttempt, technicalCancelOutcome } from './queries.ts';
import { technicalCancelReference } from './requests.ts';

/** Adyen's word on a technical cancel so far: confirmed, refused, or nothing yet. */
export type CancelConfirmation = 'confirmed' | 'refused' | undefined;

/** Reads the TECHNICAL_CANCEL items stored for one attempt of one account (the notification inbox). */
export type TechnicalCancelLookup = (accountId: number, reference: string) => Promise<CancelConfirmation>;

/** The lookup over a database: a fresh entity manager per look, outside any caller's transaction. */
export function technicalCancelLookup(em: EntityManager): TechnicalCancelLookup {
  return async (accountId, reference) => {
    const [row] = await executeParameterized<{ confirmed: boolean }>(em.fork(), technicalCancelOutcome, [
      accountId,
      reference,
      technicalCancelReference(reference),
    ]);
    if (!row) return undefined;
    return row.confirmed ? 'confirmed' : 'refused';
  };
}

/** Reads the AUTHORISATION item stored for one attempt of one account, if Adyen has sent it. */
export type AuthorisationLookup = (
  accountId: number,
  reference: string,
) => Promise<NotificationRequestItem | undefined>;

/** The lookup over a database, as technicalCancelLookup's. */
export function authorisationLookup(em: EntityManager): AuthorisationLookup {
  return async (accountId, reference) => {
    const [row] = await executeParameterized<{ body: NotificationRequestItem }>(
      em.fork(),
      authorisationOfAttempt,
      [accountId, reference],
    );
    return row?.body;
  };
}

const pollMs = 100;

/**
 * Waits up to waitMs for Adyen's confirmation of a technical cancel. Adyen answers the request `received`
 * and reports the outcome in a TECHNICAL_CANCEL notification: a payment it captured already cannot be
 * cancelled this way, so only the notification says whether the shopper still holds a charge.
 */
export async function awaitCancelConfirmation(
  look: () => Promise<CancelConfirmation>,
  waitMs: number,
): Promise<CancelConfirmation> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const outcome = await look();
    if (outcome !== undefined || Date.now() >= deadline) return outcome;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
