import { z } from 'zod';
import { creditCardInput } from './card-input.ts';
import type { CardBrand } from './cards.ts';
import { DomainError } from './errors.ts';
import type { FraudResultInfo } from './fraud.ts';
import {
  amountInput,
  booleanInput,
  checkAmountFitsCurrency,
  currencyInput,
  optionalText,
  positiveIntegerInput,
  text,
} from './primitives.ts';
import {
  type AuthenticationResult,
  type Level3Data,
  level3DataInput,
  type TransactionFraudInfo,
  type TransactionMetaData,
  threeDSecureInput,
  transactionFraudInfoInput,
  transactionMetaDataInput,
} from './transaction-details.ts';
import {
  checkSplitForm,
  type SplitShown,
  splitInputs,
  vendorAmountInput,
  vendorsRefundInfoInput,
} from './vendor-split.ts';
import { type WalletResponse, walletInput } from './wallets.ts';

/** POST /transactions creates payments; PUT /transactions changes them. Clients send the same body shape to
 * both, so the verb is checked against the body's type before anything else (see docs/conformance.md, Card transactions). */
export const createTypes = ['AUTH_CAPTURE', 'AUTH_ONLY'] as const;
export const updateTypes = ['CAPTURE', 'AUTH_REVERSAL'] as const;
export type CreateType = (typeof createTypes)[number];
export type UpdateType = (typeof updateTypes)[number];

export function checkTransactionType(body: unknown, method: 'POST' | 'PUT'): void {
  const type =
    typeof body === 'object' && body !== null
      ? (body as Record<string, unknown>).cardTransactionType
      : undefined;
  const allowed: readonly string[] = method === 'POST' ? createTypes : updateTypes;
  if (typeof type === 'string' && allowed.includes(type)) return;
  if (typeof type === 'string' && [...createTypes, ...updateTypes].includes(type as CreateType)) {
    throw new DomainError(
      'INVALID_HTTP_METHOD',
      `${type} is sent with ${method === 'POST' ? 'PUT' : 'POST'}`,
    );
  }
  throw new DomainError(
    'INVALID_TRANSACTION_TYPE',
    `cardTransactionType must be one of ${allowed.join(', ')}`,
    {
      name: 'cardTransactionType',
      ...(typeof type === 'string' ? { messageValue: type } : {}),
    },
  );
}

export const cardHolderInfoInput = z.object({
  firstName: optionalText(100),
  lastName: optionalText(100),
  zip: optionalText(20),
  email: optionalText(200),
  country: optionalText(2),
});

export const merchantTransactionIdInput = text(50);
export const softDescriptorInput = text(20).regex(/^[\w .,*'&-]+$/, 'has characters a statement cannot show');

export const createTransactionInput = z
  .object({
    cardTransactionType: z.enum(createTypes),
    amount: amountInput,
    currency: currencyInput,
    creditCard: creditCardInput.optional(),
    pfToken: text(100).optional(),
    wallet: walletInput.optional(),
    vaultedShopperId: positiveIntegerInput.optional(),
    cardHolderInfo: cardHolderInfoInput.optional(),
    softDescriptor: softDescriptorInput.optional(),
    merchantTransactionId: merchantTransactionIdInput.optional(),
    threeDSecure: threeDSecureInput.optional(),
    transactionMetaData: transactionMetaDataInput.optional(),
    level3Data: level3DataInput.optional(),
    transactionFraudInfo: transactionFraudInfoInput.optional(),
    ...splitInputs,
  })
  .superRefine((request, ctx) => {
    checkAmountFitsCurrency(request.amount, request.currency, ctx);
    checkSplitForm(request, ctx);
    if (request.creditCard && request.pfToken) {
      ctx.addIssue({
        code: 'custom',
        path: ['pfToken'],
        message: 'send either creditCard or pfToken, not both',
      });
    }
    if (request.wallet && (request.creditCard || request.pfToken)) {
      ctx.addIssue({
        code: 'custom',
        path: ['wallet'],
        message: `send either wallet or ${request.creditCard ? 'creditCard' : 'pfToken'}, not both`,
      });
    }
    if (
      !request.creditCard &&
      !request.pfToken &&
      !request.wallet &&
      request.vaultedShopperId === undefined
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['creditCard'],
        message: 'one of creditCard, pfToken, wallet or vaultedShopperId is required',
      });
    }
  });

export const updateTransactionInput = z
  .object({
    cardTransactionType: z.enum(updateTypes),
    transactionId: text(50).optional(),
    merchantTransactionId: merchantTransactionIdInput.optional(),
    amount: amountInput.optional(),
  })
  .superRefine((request, ctx) => {
    if (request.transactionId === undefined && request.merchantTransactionId === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['transactionId'],
        message: 'transactionId or merchantTransactionId is required',
      });
    }
  });

/** One transaction, by Paywire's id or the merchant's own (the original's two lookups). */
const byEitherId = {
  transactionId: text(50).optional(),
  merchantTransactionId: merchantTransactionIdInput.optional(),
};

/** A transaction named by Paywire's id or by the merchant's. */
export interface TransactionIds {
  transactionId?: string | undefined;
  merchantTransactionId?: string | undefined;
}

function requireOneId(request: TransactionIds, ctx: z.RefinementCtx) {
  if ((request.transactionId === undefined) === (request.merchantTransactionId === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['transactionId'],
      message: 'name the transaction by exactly one of transactionId or merchantTransactionId',
    });
  }
}

export const transactionIdInput = z.object(byEitherId).superRefine(requireOneId);

/**
 * The original's refund request. `cancelSubscriptions` is kept with the refund (Paywire has no
 * subscriptions yet, so it cancels nothing); `taxAmount` is the part of `amount` that is tax.
 */
export const refundInput = z
  .object({
    ...byEitherId,
    amount: amountInput.optional(),
    taxAmount: amountInput.optional(),
    reason: optionalText(4000),
    cancelSubscriptions: booleanInput.optional(),
    transactionMetaData: transactionMetaDataInput.optional(),
    /** The transaction's one vendor's part of the refund; its amount is checked by core (14031, 14043). */
    vendorAmount: vendorAmountInput.optional(),
    vendorsRefundInfo: vendorsRefundInfoInput.optional(),
  })
  .superRefine((request, ctx) => {
    requireOneId(request, ctx);
    if (request.vendorAmount !== undefined && request.vendorsRefundInfo !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['vendorsRefundInfo'],
        message: 'send either vendorAmount or vendorsRefundInfo, not both',
      });
    }
    if (request.taxAmount !== undefined && request.amount === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['taxAmount'],
        message: 'is only for a partial refund: send amount (tax included) with it',
      });
    }
    if (
      request.taxAmount !== undefined &&
      request.amount !== undefined &&
      Number(request.taxAmount) > Number(request.amount)
    ) {
      ctx.addIssue({ code: 'custom', path: ['taxAmount'], message: 'must not exceed amount' });
    }
  });

export type CreateTransactionInput = z.input<typeof createTransactionInput>;
export type UpdateTransactionInput = z.input<typeof updateTransactionInput>;
export type RefundInput = z.input<typeof refundInput>;

export type CardTransactionType = CreateType | 'CAPTURE' | 'AUTH_REVERSAL';

export interface CardResponse {
  cardLastFourDigits: string;
  cardType: CardBrand;
  cardSubType: 'CREDIT' | 'DEBIT';
  cardCategory: string;
  expirationMonth: string;
  expirationYear: string;
}

export interface ProcessingInfo {
  processingStatus: 'success';
  cvvResponseCode: string;
  authorizationCode: string;
  avsResponseCodeZip: string;
  avsResponseCodeAddress: string;
  avsResponseCodeName: string;
  networkTransactionId: string;
}

/** The public card transaction body (JSON shape; the XML is derived from it). */
/** `vendorInfo`/`vendorsInfo` (SplitShown): the split between the merchant and its vendors, as sent. */
export interface CardTransaction extends SplitShown {
  cardTransactionType: CardTransactionType;
  transactionId: string;
  merchantTransactionId?: string;
  /** The original's: ECOMMERCE for a shopper's payment (the only kind /transactions makes). */
  recurringTransaction: 'ECOMMERCE';
  softDescriptor?: string;
  amount: number;
  currency: string;
  cardHolderInfo?: { firstName?: string; lastName?: string; zip?: string; email?: string; country?: string };
  vaultedShopperId: number;
  /** A wallet payment's card has no expiry the wallet shows: it is present for card and token payments. */
  creditCard: Omit<CardResponse, 'expirationMonth' | 'expirationYear'> &
    Partial<Pick<CardResponse, 'expirationMonth' | 'expirationYear'>>;
  /** Present when the transaction was paid with a wallet token. */
  wallet?: WalletResponse;
  processingInfo: ProcessingInfo;
  /** Present when the request carried 3-D Secure data: the acquirer's view of the authentication. */
  threeDSecure?: { authenticationResult: AuthenticationResult };
  transactionMetaData?: TransactionMetaData;
  level3Data?: Level3Data;
  transactionFraudInfo?: TransactionFraudInfo;
  /** Present when the merchant's fraud rules screened the sale (docs/fraud.md). */
  fraudResultInfo?: FraudResultInfo;
}

/** The original's refund answer (its `date` is the merchant's day of the refund, MM/dd/yyyy), plus our transactionId. */
export interface Refund {
  refundTransactionId: string;
  transactionId: string;
  amount: number;
  taxAmount?: number;
  currency: string;
  date: string;
  reason?: string;
  cancelSubscriptions?: boolean;
  transactionMetaData?: TransactionMetaData;
  refundStatus: 'SUCCESS' | 'PENDING';
  /** Each vendor's part of the refund, when the transaction was split (docs/marketplace.md, Refunds). */
  vendorsRefundInfo?: { vendorRefundInfo: { vendorId: number; vendorAmount: number }[] };
}

/**
 * The row id a public transaction id names, or null when it cannot name one. Card transactions and SEPA
 * debits share one id space.
 */
export function transactionIdOf(transactionId: string): number | null {
  return /^\d{1,18}$/.test(transactionId) ? Number(transactionId) : null;
}
