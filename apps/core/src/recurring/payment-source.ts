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
import { achMandateOf } from '../ach/service.ts';
import type { MerchantContext } from '../context.ts';
import { schemeCurrency } from '../sepa/debits.ts';
import { type DebitScheme, SepaMandate } from '../sepa/entities.ts';
import { mandateFor, storedIban } from '../sepa/mandates.ts';
import { ecpAccountOf } from '../sepa/presentation.ts';
import { type Shopper, StoredCard } from '../shoppers/entities.ts';
import { cardResponse, vaultCard } from '../shoppers/service.ts';
import { type CardMaterial, consumeToken } from '../tokens/service.ts';

export type PaymentSourceInput = z.output<typeof subscriptionPaymentSourceInput>;

/** What pays a subscription: one of the shopper's vaulted cards, or a mandate of the shopper (SEPA or ACH). */
export type Payer = { card: StoredCard; mandate?: undefined } | { mandate: SepaMandate; card?: undefined };

export function material(card: CreditCardInput): CardMaterial {
  return { number: card.cardNumber, ...card };
}

/** The debit scheme a request's payment source names, if it names a bank account. */
export function sourceScheme(source: PaymentSourceInput | undefined): DebitScheme | undefined {
  if (source?.sepaDirectDebitInfo) return 'SEPA';
  if (source?.ecpInfo) return 'ACH';
  return undefined;
}

/**
 * A debit is in its scheme's currency (EUR for SEPA, USD for ACH). A scheduled SEPA debit is pre-notified at
 * least 5 days ahead (docs/conformance.md, Recurring billing): a DAILY plan leaves no room for that, so it
 * cannot be paid by SEPA direct debit. ACH has no pre-notification (docs/ach.md, Subscriptions).
 */
export function requireDebitTerms(
  scheme: DebitScheme,
  terms: { currency: string; frequency?: ChargeFrequency | undefined },
): void {
  const currency = schemeCurrency(scheme);
  const method = scheme === 'ACH' ? 'ECP' : 'SEPA direct debit';
  if (terms.currency !== currency) {
    throw new DomainError('VALIDATION_GENERAL_FAILURE', `currency: ${currency} only for ${method}`, {
      name: 'currency',
      messageValue: terms.currency,
    });
  }
  if (scheme === 'SEPA' && terms.frequency === 'DAILY') {
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      'chargeFrequency: a DAILY plan cannot be paid by SEPA direct debit, whose debits are pre-notified at least 5 days ahead',
      { name: 'chargeFrequency', messageValue: terms.frequency },
    );
  }
}

/**
 * The payer a source names for a shopper, made in `em`: a card sent or behind a token is vaulted, an IBAN
 * or an ECP account gets its mandate (made or reused), first and last four characters (an ECP account's
 * masked number) pick a stored one; no source is the shopper's newest card, else its newest mandate. A card
 * number's token is spent here.
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
  const ecp = source?.ecpInfo?.ecp;
  if (ecp) {
    return { mandate: await achMandateOf(ctx, em, shopper, ecp, 'paymentSource.ecpInfo.ecp', now) };
  }
  const stored = shopper.id === undefined ? null : await storedPayer(em, shopper);
  if (stored) return stored;
  throw new DomainError('INVALID_PAYMENT_DETAILS', 'paymentSource: the shopper has no card or bank account', {
    name: 'paymentSource',
  });
}

/**
 * A returning shopper's payer when the request names none: the newest card, else the newest mandate, SEPA or
 * ACH (an account stored on the vaulted shopper is an ACH mandate).
 */
export async function storedPayer(em: EntityManager, shopper: Shopper): Promise<Payer | null> {
  const card = await em.findOne(StoredCard, { shopper, removedAt: null }, { orderBy: { id: 'desc' } });
  if (card) return { card };
  const mandate = await em.findOne(SepaMandate, { shopper }, { orderBy: { id: 'desc' } });
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
  const ecp = ecpAccountOf(mandate);
  if (ecp) return { ecpInfo: { ecp } };
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
