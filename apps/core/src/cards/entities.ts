import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type {
  AuthenticationResult,
  CreateType,
  FraudResultInfo,
  Level3Data,
  CardTransaction as PublicTransaction,
  TransactionFraudInfo,
  TransactionMetaData,
} from '@paywire/contracts';
import { Shopper, StoredCard } from '../shoppers/entities.ts';
import type { WalletCard } from '../wallets/service.ts';

export type TransactionStatus = 'AUTHORIZED' | 'CAPTURED' | 'REVERSED';
export type RefundStatus = 'PENDING' | 'COMPLETED' | 'CANCELLED';
export type ProcessingCodes = Omit<PublicTransaction['processingInfo'], 'processingStatus'>;

export interface ThreeDSecureRecord {
  authenticationResult: AuthenticationResult;
  threeDSecureReferenceId?: string;
  eci?: string;
  dsTransactionId?: string;
  threeDSecureVersion?: string;
}

export const CardTransaction = defineEntity({
  name: 'CardTransaction',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    merchantTransactionId: p.string().length(50).nullable(),
    shopper: () => p.manyToOne(Shopper),
    /** The vaulted card charged; null for a wallet payment, which keeps its card in `wallet` instead. */
    card: () => p.manyToOne(StoredCard).nullable(),
    wallet: p.json<WalletCard>().nullable(),
    type: p.string().length(20).$type<CreateType>(),
    status: p.string().length(20).$type<TransactionStatus>(),
    currency: p.string().length(3),
    amountMinor: p.bigint('number'),
    capturedMinor: p.bigint('number').default(0),
    refundedMinor: p.bigint('number').default(0),
    softDescriptor: p.string().length(20).nullable(),
    cardHolder: p.json<PublicTransaction['cardHolderInfo']>().nullable(),
    processing: p.json<ProcessingCodes>(),
    /** The 3-D Secure facts the acquirer got and its result; never the CAVV or XID cryptograms. */
    threeDSecure: p.json<ThreeDSecureRecord>().fieldName('three_d_secure').nullable(),
    transactionMetaData: p.json<TransactionMetaData>().nullable(),
    level3Data: p.json<Level3Data>().fieldName('level3_data').nullable(),
    transactionFraudInfo: p.json<TransactionFraudInfo>().nullable(),
    /** Set when the merchant's fraud rules screened the sale (fraud/screening.ts). */
    fraudResultInfo: p.json<FraudResultInfo>().nullable(),
    /** When the authorization happened by the merchant's clock: the reversal window counts from here. */
    authorizedAt: p.datetime(),
    /** The processor account that authorized it (null: the built-in sandbox account); its modifications go there. */
    processorAccountId: p.integer().nullable(),
    /** The processor's reference of the authorization (Adyen's pspReference); null on rows older than 0019. */
    processorReference: p.string().length(64).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type CardTransaction = InferEntity<typeof CardTransaction>;

export const Refund = defineEntity({
  name: 'Refund',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.integer(),
    transaction: () => p.manyToOne(CardTransaction),
    amountMinor: p.bigint('number'),
    taxAmountMinor: p.bigint('number').nullable(),
    reason: p.string().length(4000).nullable(),
    cancelSubscriptions: p.boolean().nullable(),
    transactionMetaData: p.json<TransactionMetaData>().nullable(),
    /** The payment attempt that asked the processor for it: a refund the processor reports failed is undone by it. */
    attemptReference: p.string().columnType('uuid').nullable(),
    /** PENDING until the processor has done it (docs/conformance.md, Pending refunds); CANCELLED: withdrawn. */
    status: p.string().length(10).$type<RefundStatus>().default('COMPLETED'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Refund = InferEntity<typeof Refund>;

/** What the processor knows an authorization by: its reference, or on rows older than 0019 the sandbox's id. */
export function processorReferenceOf(
  transaction: Pick<CardTransaction, 'processorReference' | 'processing'>,
): string {
  return transaction.processorReference ?? transaction.processing.networkTransactionId;
}
