import { type ErrorName, minorToDecimal } from '@paywire/contracts';
import { type EventParameters, ipnDate, ReportedFailure } from '../ipn/events.ts';
import type { CardTransaction } from './entities.ts';

/** What an event tells of the card paid with: a vaulted card, or the card behind a wallet token. */
export interface CardView {
  brand: string;
  lastFour: string;
  expirationMonth?: string | undefined;
  expirationYear?: string | undefined;
  cardSubType: string;
  cardCategory: string;
}

/** The IPN parameters of a card event (see docs/conformance.md, IPN delivery). */
export function cardEventParameters(
  card: CardView,
  shopper:
    | { id: number; firstName?: string | null | undefined; lastName?: string | null | undefined }
    | undefined,
  money: { amountMinor: number; currency: string },
  now: Date,
  transaction?: Pick<CardTransaction, 'id' | 'merchantTransactionId' | 'cardHolder'>,
): EventParameters {
  const holder = transaction?.cardHolder;
  return {
    referenceNumber: transaction ? String(transaction.id) : '',
    merchantTransactionId: transaction?.merchantTransactionId ?? '',
    accountId: shopper?.id,
    invoiceAmount: minorToDecimal(money.amountMinor, money.currency),
    currency: money.currency,
    paymentMethod: 'CC',
    firstName: holder?.firstName ?? shopper?.firstName ?? '',
    lastName: holder?.lastName ?? shopper?.lastName ?? '',
    transactionDate: ipnDate(now),
    creditCardType: card.brand,
    creditCardLastFourDigits: card.lastFour,
    creditCardExpDate:
      card.expirationMonth && card.expirationYear ? `${card.expirationMonth}/${card.expirationYear}` : '',
    cardSubType: card.cardSubType,
    cardCategory: card.cardCategory,
  };
}

/** A processor decline, carrying what its Decline event reports. */
export class CardDeclined extends ReportedFailure {
  constructor(reason: ErrorName, description: string, parameters: EventParameters) {
    super(reason, description, 'Decline', parameters);
  }
}
