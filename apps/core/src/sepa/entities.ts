import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type { EcpAccountType, SepaStatus, TransactionMetaData } from '@paywire/contracts';
import { Shopper } from '../shoppers/entities.ts';

/** What the bank answered when the debit was presented for collection (the sandbox decides by IBAN). */
export type BankOutcome = 'SUCCESS' | 'FAIL' | 'SUCCESS_THEN_RETURN';

/** A bank's answer for one debit; an ACH bank gives the NACHA return code of a debit it fails or returns. */
export interface BankAnswer {
  outcome: BankOutcome;
  returnCode?: string;
}

/** The bank debit schemes: SEPA direct debit, and ECP/ACH (docs/ach.md). */
export type DebitScheme = 'SEPA' | 'ACH';

/**
 * A shopper's acceptance of a mandate for one account: a SEPA IBAN, or (scheme ACH) a US account, whose
 * account number the `iban` columns hold and whose routing number and type have columns of their own
 * (0034-ach). The number is sealed (AES-256-GCM) and found again by a keyed fingerprint; only its first and
 * last four characters are ever shown.
 */
export const SepaMandate = defineEntity({
  name: 'SepaMandate',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    shopper: () => p.manyToOne(Shopper),
    /** The public mandateId. */
    reference: p.string().length(35),
    /** Both null once the shopper is deleted (erased; the first and last four stay). */
    ibanFingerprint: p.string().length(64).nullable(),
    sealedIban: p.text().nullable(),
    ibanFirstFour: p.string().length(4),
    ibanLastFour: p.string().length(4),
    /** When the shopper accepted it, by the merchant's clock: the mandateDate. */
    acceptedAt: p.datetime(),
    scheme: p.string().length(4).$type<DebitScheme>().default('SEPA'),
    routingNumber: p.string().length(9).nullable(),
    accountType: p.string().length(20).$type<EcpAccountType>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type SepaMandate = InferEntity<typeof SepaMandate>;

/** SEPA debits are in euros, ACH debits in US dollars. */
export type DebitCurrency = 'EUR' | 'USD';

/**
 * One debit, SEPA or ACH (its mandate's scheme). Its id comes from the card transactions' sequence, so a transaction id names one payment
 * whichever kind it is. `nextActionAt` is when the bank's next answer is due by the merchant's clock
 * (null once the debit is final); settlement picks rows by it. `outcome` is null until the debit is presented
 * to the bank at its collection date; `presentingUntil` is the lease of the settlement run asking the bank.
 */
export const SepaDebit = defineEntity({
  name: 'SepaDebit',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    merchantTransactionId: p.string().length(50).nullable(),
    shopper: () => p.manyToOne(Shopper),
    mandate: () => p.manyToOne(SepaMandate),
    status: p.string().length(10).$type<SepaStatus>(),
    outcome: p.string().length(20).nullable().$type<BankOutcome>(),
    /**
     * The NACHA return code an ACH bank answered with a failure or a return (0041): kept with the outcome,
     * shown once the debit failed or was returned; cleared when a full refund leaves nothing to return.
     */
    returnCode: p.string().length(3).nullable(),
    currency: p.string().length(3).$type<DebitCurrency>(),
    amountMinor: p.bigint('number'),
    refundedMinor: p.bigint('number').default(0),
    payerFirstName: p.string().length(100),
    payerLastName: p.string().length(100),
    transactionMetaData: p.json<TransactionMetaData>().nullable(),
    /** Collection date by the merchant's clock. */
    dueAt: p.datetime(),
    nextActionAt: p.datetime().nullable(),
    settledAt: p.datetime().nullable(),
    presentingUntil: p.datetime().nullable(),
    /** Merchant's clock at submission. */
    submittedAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type SepaDebit = InferEntity<typeof SepaDebit>;

/** A refund of a debit, by the merchant or returned by the bank; ids from the card refunds' sequence. */
export const SepaRefund = defineEntity({
  name: 'SepaRefund',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    debit: () => p.manyToOne(SepaDebit),
    amountMinor: p.bigint('number'),
    taxAmountMinor: p.bigint('number').nullable(),
    reason: p.string().length(4000).nullable(),
    cancelSubscriptions: p.boolean().nullable(),
    transactionMetaData: p.json<TransactionMetaData>().nullable(),
    /** True when the bank returned the debit (the sandbox's refund scenario). */
    returned: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type SepaRefund = InferEntity<typeof SepaRefund>;
