import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type ChargeFrequency,
  type CreditCardInput,
  DomainError,
  type SubscriptionPaymentSource,
  shortDate,
  type subscriptionPaymentSourceInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { SepaMandate } from '../sepa/entities.ts';
import { mandateFor, storedIban } from '../sepa/mandates.ts';
import { type Shopper, StoredCard } from '../shoppers/entities.ts';
import { cardResponse, vaultCard } from '../shoppers/service.ts';
import { type CardMaterial, consumeToken } from '../tokens/service.ts';

export type PaymentSourceInput = z.output<typeof subscriptionPaymentSourceInput>;

/** What pays a subscription: one of the shopper's vaulted cards, or a SEPA mandate of the shopper. */
export type Payer = { card: StoredCard; mandate?: undefined } | { mandate: SepaMandate; card?: undefined };

export function material(card: CreditCardInput): CardMaterial {
  return { number: card.cardNumber, ...card };
}

/**
 * SEPA debits are in euros only, and a scheduled one is pre-notified at least 5 days ahead (docs/conformance.md,
 * Recurring billing): a DAILY plan leaves no room for that, so it cannot be paid by SEPA direct debit.
 */
export function requireSepaTerms(terms: { currency: string; frequency?: ChargeFrequency | undefined }): void {
  if (terms.currency !== 'EUR') {
    throw new DomainError('VALIDATION_GENERAL_FAILURE', 'currency: EUR only for SEPA direct debit', {
      name: 'currency',
      messageValue: terms.currency,
    });
  }
  if (terms.frequency === 'DAILY') {
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      'chargeFrequency: a DAILY plan cannot be paid by SEPA direct debit, whose debits are pre-notified at least 5 days ahead',
      { name: 'chargeFrequency', messageValue: terms.frequency },
    );
  }
}

/**
 * The payer a source names for a shopper, made in `em`: a card sent or behind a token is vaulted, an IBAN
 * gets its mandate (made or reused), first and last four characters pick a stored mandate; no source is the
 * shopper's newest card, else its newest mandate. A card number's token is spent here.
 */
export async function resolvePayer(
  ctx: MerchantContext,
  em: EntityManager,
  shopper: Shopper,
  source: PaymentSourceInput | undefined,
  now: Date,
): Promise<Payer> {
  const cardInfo = source?.creditCardInfo;
  if (cardInfo) {
    const card = cardInfo.creditCard
      ? material(cardInfo.creditCard)
      : await consumeToken(ctx, em, cardInfo.pfToken as string, now, 'paymentSource.creditCardInfo.pfToken');
    if (shopper.id === undefined) await em.flush(); // a new shopper is written before its card
    const cardId = await vaultCard(ctx, em, shopper, card, cardInfo.billingContactInfo);
    return { card: await em.findOneOrFail(StoredCard, cardId, { refresh: true }) };
  }
  const account = source?.sepaDirectDebitInfo;
  if (account) {
    const iban = account.iban ?? (await storedIban(ctx, em, shopper, account));
    return { mandate: await mandateFor(ctx, em, shopper, iban, now) };
  }
  const stored = shopper.id === undefined ? null : await storedPayer(em, shopper);
  if (stored) return stored;
  throw new DomainError('INVALID_PAYMENT_DETAILS', 'paymentSource: the shopper has no card or SEPA account', {
    name: 'paymentSource',
  });
}

/** A returning shopper's payer when the request names none: the newest card, else the newest mandate. */
export async function storedPayer(em: EntityManager, shopper: Shopper): Promise<Payer | null> {
  const card = await em.findOne(StoredCard, { shopper, removedAt: null }, { orderBy: { id: 'desc' } });
  if (card) return { card };
  const mandate = await em.findOne(SepaMandate, { shopper, scheme: 'SEPA' }, { orderBy: { id: 'desc' } });
  return mandate ? { mandate } : null;
}

export function presentPaymentSource(payer: {
  card?: StoredCard | null | undefined;
  sepaMandate?: SepaMandate | null | undefined;
}): SubscriptionPaymentSource {
  if (payer.card) {
    return {
      creditCardInfo: {
        ...(payer.card.billingContact ? { billingContactInfo: payer.card.billingContact } : {}),
        creditCard: cardResponse(payer.card),
      },
    };
  }
  const mandate = payer.sepaMandate as SepaMandate;
  return {
    sepaDirectDebitInfo: {
      sepaDirectDebit: {
        ibanFirstFour: mandate.ibanFirstFour,
        ibanLastFour: mandate.ibanLastFour,
        mandateId: mandate.reference,
        mandateDate: shortDate(mandate.acceptedAt),
      },
    },
  };
}
