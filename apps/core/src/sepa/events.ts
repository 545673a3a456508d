import { minorToDecimal, shortDate } from '@paywire/contracts';
import { type EventParameters, ipnDate } from '../ipn/events.ts';
import type { DebitScheme, SepaDebit } from './entities.ts';

/** The IPN parameters of debit events (ChargePending, Charge, Refund, ...), SEPA or ACH. */

/** The IPN parameters of a SEPA event (see docs/conformance.md, IPN delivery). */
export function sepaEventParameters(
  debit: {
    id: number;
    merchantTransactionId?: string | null | undefined;
    shopperId: number;
    payerFirstName: string;
    payerLastName: string;
    currency: string;
  },
  mandate: {
    scheme: DebitScheme;
    accountType?: string | null | undefined;
    reference: string;
    acceptedAt: Date;
    ibanFirstFour: string;
    ibanLastFour: string;
  },
  amountMinor: number,
  now: Date,
): EventParameters {
  const common = {
    referenceNumber: String(debit.id),
    merchantTransactionId: debit.merchantTransactionId ?? '',
    accountId: debit.shopperId,
    invoiceAmount: minorToDecimal(amountMinor, debit.currency),
    currency: debit.currency,
    paymentMethod: 'SEPA_DIRECT_DEBIT',
    paymentType: 'SEPA_DIRECT_DEBIT',
    firstName: debit.payerFirstName,
    lastName: debit.payerLastName,
    transactionDate: ipnDate(now),
  };
  // An ACH debit's events name the method as the original's do (ECP), with the account's type and last four.
  if (mandate.scheme === 'ACH') {
    return {
      ...common,
      paymentMethod: 'ECP',
      paymentType: 'ECP',
      ecpAccountType: mandate.accountType ?? '',
      ecpAccountLastFour: mandate.ibanLastFour,
    };
  }
  return { ...common, ibanFirstFour: mandate.ibanFirstFour, ibanLastFour: mandate.ibanLastFour };
}

/** The mandate parameters a Charge event adds (see docs/conformance.md, IPN delivery). */
export function mandateEventParameters(mandate: { reference: string; acceptedAt: Date }): EventParameters {
  return { sepaMandateId: mandate.reference, sepaMandateDate: shortDate(mandate.acceptedAt) };
}

/** A debit as sepaEventParameters takes it. */
export const eventDebit = (debit: SepaDebit) => ({ ...debit, shopperId: debit.shopper.id });
