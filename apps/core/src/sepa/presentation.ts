import {
  type AltTransaction,
  achReturnError,
  type EcpAccount,
  minorToAmount,
  preNotificationPath,
  publicEcpAccount,
  type SepaDebitDetails,
  type SepaStatus,
  shortDate,
  type TransactionMetaData,
} from '@paywire/contracts';
import type { DebitCurrency, SepaDebit, SepaMandate } from './entities.ts';
import { type PreNotification, preNotificationText } from './texts.ts';

/** How debits are shown: the service's view of a debit and the public answers built from it. */

/**
 * A debit as the service sees it. Dates are by the merchant's clock. An ACH debit (docs/ach.md) has `ecp`,
 * its account as answers show it; the SEPA fields of an ACH debit hold its authorization's reference and no
 * pre-notification.
 */
export interface SepaDebitView {
  transactionId: string;
  status: SepaStatus;
  amountMinor: number;
  currency: DebitCurrency;
  ecp?: EcpAccount;
  ibanFirstFour: string;
  ibanLastFour: string;
  mandateId: string;
  /** dd-Mon-yy */
  mandateDate: string;
  preNotificationText: string;
  createdAt: Date;
  /** The collection date. */
  dueAt: Date;
  vaultedShopperId: number;
  payer: { firstName: string; lastName: string };
  merchantTransactionId?: string;
  transactionMetaData?: TransactionMetaData;
  refundedMinor: number;
  /** A failed or returned ACH debit's return code. */
  returnCode?: string;
}

/** What an ACH mandate shows of its account. */
export function ecpAccountOf(mandate: SepaMandate): EcpAccount | undefined {
  if (mandate.scheme !== 'ACH' || !mandate.accountType || !mandate.routingNumber) return undefined;
  return publicEcpAccount(mandate.accountType, mandate.ibanLastFour, mandate.routingNumber);
}

export function debitView(debit: SepaDebit, mandate: SepaMandate): SepaDebitView {
  const ecp = ecpAccountOf(mandate);
  return {
    transactionId: String(debit.id),
    ...(ecp ? { ecp } : {}),
    status: debit.status,
    amountMinor: debit.amountMinor,
    currency: debit.currency,
    ibanFirstFour: mandate.ibanFirstFour,
    ibanLastFour: mandate.ibanLastFour,
    mandateId: mandate.reference,
    mandateDate: shortDate(mandate.acceptedAt),
    preNotificationText: ecp ? '' : preNotificationText('en', notificationOf(debit, mandate)),
    createdAt: debit.submittedAt,
    dueAt: debit.dueAt,
    vaultedShopperId: debit.shopper.id,
    payer: { firstName: debit.payerFirstName, lastName: debit.payerLastName },
    ...(debit.merchantTransactionId ? { merchantTransactionId: debit.merchantTransactionId } : {}),
    ...(debit.transactionMetaData ? { transactionMetaData: debit.transactionMetaData } : {}),
    refundedMinor: debit.refundedMinor,
    // answered with the outcome, shown once it took effect
    ...(debit.returnCode && (debit.status === 'FAIL' || debit.status === 'REFUNDED')
      ? { returnCode: debit.returnCode }
      : {}),
  };
}

/** What a debit's pre-notification tells its payer. */
export function notificationOf(debit: SepaDebit, mandate: SepaMandate): PreNotification {
  return {
    amountMinor: debit.amountMinor,
    currency: debit.currency,
    collectionDate: debit.dueAt,
    mandateId: mandate.reference,
    ibanLastFour: mandate.ibanLastFour,
  };
}

/** What a debit shows of its account and mandate; the link is a path, the facade adds the base URL. */
export function debitDetails(debit: SepaDebitView): SepaDebitDetails {
  return {
    ibanFirstFour: debit.ibanFirstFour,
    ibanLastFour: debit.ibanLastFour,
    mandateId: debit.mandateId,
    mandateDate: debit.mandateDate,
    preNotificationText: debit.preNotificationText,
    preNotificationTranslationRef: preNotificationPath(debit.transactionId),
  };
}

/** The public alt-transaction. */
export function presentAltTransaction(debit: SepaDebitView): AltTransaction {
  const account = debit.ecp
    ? { ecpTransaction: debit.ecp }
    : { sepaDirectDebitTransaction: debitDetails(debit) };
  return {
    transactionId: debit.transactionId,
    ...(debit.merchantTransactionId ? { merchantTransactionId: debit.merchantTransactionId } : {}),
    amount: minorToAmount(debit.amountMinor, debit.currency),
    currency: debit.currency,
    payerInfo: debit.payer,
    vaultedShopperId: debit.vaultedShopperId,
    authorizedByShopper: true,
    ...(debit.transactionMetaData ? { transactionMetaData: debit.transactionMetaData } : {}),
    ...account,
    processingInfo: {
      processingStatus: debit.status,
      ...(debit.returnCode ? { processingErrors: [achReturnError(debit.returnCode)] } : {}),
    },
  };
}
