import type { EntityManager } from '@mikro-orm/postgresql';
import {
  amountInMinorUnits,
  DomainError,
  minorToAmount,
  type Refund as PublicRefund,
} from '@paywire/contracts';
import { executeParameterized } from '../db/wire.ts';
import {
  addVendorRefunded,
  giveBackShares,
  insertVendorRefunds,
  removeVendorRefunds,
  splitsForRefund,
} from './queries.ts';

/** What a refund request says of its vendors: one amount for the one vendor, or amounts per vendor. */
export interface VendorRefundRequest {
  vendorAmount?: string | undefined;
  vendorsRefundInfo?: { vendorRefundInfo: { vendorId: number; vendorAmount: string }[] } | undefined;
}

/** One vendor's part of a refund. */
export interface VendorPart {
  vendorId: number;
  amountMinor: number;
}

const asksVendorAmounts = (request: VendorRefundRequest): boolean =>
  request.vendorAmount !== undefined || request.vendorsRefundInfo !== undefined;

/** The 14030 a vendor amount gets on a payment with no vendor. */
const vendorAmountNotSupported = () =>
  new DomainError(
    'REFUND_VENDOR_AMOUNT_NOT_SUPPORTED',
    'a vendor refund amount needs a transaction split with vendors',
  );

function vendorAmountMinor(amount: string, currency: string, property: string): number {
  if (!/^-?\d{1,12}(?:\.\d+)?$/.test(amount)) {
    throw new DomainError('REFUND_INVALID_VENDOR_REFUND_AMOUNT', `${property}: must be a decimal amount`, {
      name: property,
      messageValue: amount.slice(0, 40),
    });
  }
  if (!(Number(amount) > 0)) {
    throw new DomainError('REFUND_NEGATIVE_VENDOR_AMOUNT', `${property}: must be greater than zero`, {
      name: property,
      messageValue: amount,
    });
  }
  return amountInMinorUnits(amount, currency, property);
}

interface SplitBalance {
  vendor_id: number;
  share_minor: number;
  refunded_minor: number;
}

/** What is left of the vendors' shares to refund, all vendors together. */
const vendorsLeftMinor = (splits: SplitBalance[]): number =>
  splits.reduce((sum, split) => sum + split.share_minor - split.refunded_minor, 0);

/**
 * Takes a refund of `amountMinor` (of `balanceMinor` still refundable) from the transaction's split, under the
 * split rows' locks, in the refund's prepare transaction: never more to a vendor than what is left of its
 * share (14032, or 14046 once nothing is), never more to the merchant than what is left of its part (14033).
 * Amounts the request names go to their vendors, and the rest to the merchant; with none named, each vendor
 * gives back the refund's proportion of its share (rounded down), plus what the merchant's part no longer
 * holds, so a refund of the whole balance gives back everything left. Returns the vendors' parts, or null for a transaction with no split.
 */
export async function takeVendorRefunds(
  em: EntityManager,
  merchantId: number,
  transaction: { id: number; currency: string; capturedMinor: number },
  refund: { amountMinor: number; balanceMinor: number },
  request: VendorRefundRequest,
): Promise<VendorPart[] | null> {
  const splits = await executeParameterized<SplitBalance>(em, splitsForRefund, [merchantId, transaction.id]);
  if (splits.length === 0) {
    if (asksVendorAmounts(request)) throw vendorAmountNotSupported();
    return null;
  }
  const left = new Map(splits.map((split) => [split.vendor_id, split.share_minor - split.refunded_minor]));
  const vendorsLeft = vendorsLeftMinor(splits);
  let parts: VendorPart[];
  if (request.vendorAmount !== undefined) {
    const [only] = splits;
    if (splits.length > 1 || !only) {
      throw new DomainError(
        'REFUND_VENDOR_ERROR',
        'the transaction has several vendors: send vendorsRefundInfo with an amount per vendor',
      );
    }
    parts = [
      {
        vendorId: only.vendor_id,
        amountMinor: vendorAmountMinor(request.vendorAmount, transaction.currency, 'vendorAmount'),
      },
    ];
  } else if (request.vendorsRefundInfo) {
    parts = request.vendorsRefundInfo.vendorRefundInfo.map((info, index) => {
      const property = `vendorsRefundInfo.vendorRefundInfo.${index}`;
      if (!left.has(info.vendorId)) {
        throw new DomainError(
          'REFUND_INVALID_VENDOR',
          `vendor ${info.vendorId} is not part of the transaction`,
          {
            name: `${property}.vendorId`,
            messageValue: String(info.vendorId),
          },
        );
      }
      return {
        vendorId: info.vendorId,
        amountMinor: vendorAmountMinor(info.vendorAmount, transaction.currency, `${property}.vendorAmount`),
      };
    });
  } else {
    parts = splits.map((split) => ({
      vendorId: split.vendor_id,
      amountMinor: Math.min(
        left.get(split.vendor_id) ?? 0,
        Math.floor((split.share_minor * refund.amountMinor) / transaction.capturedMinor),
      ),
    }));
    // Rounding down leaves the merchant's part to absorb the cents; what it no longer holds comes from the
    // vendors' rest, in the split's order, so any refund within the balance divides (the whole balance
    // gives back every share).
    let excess =
      refund.amountMinor -
      parts.reduce((sum, part) => sum + part.amountMinor, 0) -
      (refund.balanceMinor - vendorsLeft);
    for (const part of parts) {
      if (excess <= 0) break;
      const more = Math.min(excess, (left.get(part.vendorId) ?? 0) - part.amountMinor);
      part.amountMinor += more;
      excess -= more;
    }
  }
  for (const part of parts) {
    const remaining = left.get(part.vendorId) ?? 0;
    if (part.amountMinor > remaining) {
      throw new DomainError(
        remaining === 0 ? 'VENDOR_ALREADY_FULLY_REFUNDED' : 'REFUND_MAX_VENDOR_AMOUNT_FAILURE',
        `vendor ${part.vendorId} has ${minorToAmount(remaining, transaction.currency)} ${transaction.currency} of its share left to refund`,
      );
    }
    left.set(part.vendorId, remaining - part.amountMinor);
  }
  const vendorsTotal = parts.reduce((sum, part) => sum + part.amountMinor, 0);
  const merchantPart = refund.amountMinor - vendorsTotal;
  if (merchantPart < 0) {
    throw new DomainError(
      'REFUND_NEGATIVE_MERCHANT_AMOUNT',
      'the vendor amounts exceed the refund: the merchant part would be negative',
    );
  }
  if (merchantPart > refund.balanceMinor - vendorsLeft) {
    throw new DomainError(
      'REFUND_MAX_MERCHANT_AMOUNT_FAILURE',
      "the refund takes more than is left of the merchant's part: name the vendors' amounts",
    );
  }
  for (const part of parts) {
    if (part.amountMinor > 0)
      await executeParameterized(em, addVendorRefunded, [transaction.id, part.vendorId, part.amountMinor]);
  }
  return parts;
}

/** Writes the vendors' parts of a refund once its row has an id (same transaction). */
export async function recordVendorRefunds(
  em: EntityManager,
  refundId: number,
  parts: VendorPart[],
): Promise<void> {
  await executeParameterized(em, insertVendorRefunds, [
    refundId,
    parts.map((part) => part.vendorId),
    parts.map((part) => part.amountMinor),
  ]);
}

/** Refunds of payments, as their statements take them ($1, a JSON array of refund_id and transaction_id). */
type PaymentRefunds = readonly { refundId: number; transactionId: number }[];

async function forRefunds(em: EntityManager, statement: string, refunds: PaymentRefunds): Promise<void> {
  if (refunds.length === 0) return;
  await executeParameterized(em, statement, [
    JSON.stringify(refunds.map((r) => ({ refund_id: r.refundId, transaction_id: r.transactionId }))),
  ]);
}

/**
 * Refunds that give back everything left of their payments' splits (a debit the bank returned: its whole
 * balance), in the transaction that writes them, the payments locked: each vendor's part is what is left of
 * its share, recorded as a refund's would be.
 */
export const refundWholeSplits = (em: EntityManager, refunds: PaymentRefunds) =>
  forRefunds(em, giveBackShares, refunds);

/**
 * Undoes the vendors' parts of refunds that did not happen after all (a refund the processor reports failed,
 * its row removed in the same transaction; a pending refund cancelled), its transaction locked: each vendor's
 * share is refundable again.
 */
export const undoVendorRefunds = (em: EntityManager, refunds: PaymentRefunds) =>
  forRefunds(em, removeVendorRefunds, refunds);

/** The vendors' parts as the refund answer shows them. */
export function presentVendorRefunds(
  parts: VendorPart[],
  currency: string,
): Pick<PublicRefund, 'vendorsRefundInfo'> {
  return {
    vendorsRefundInfo: {
      vendorRefundInfo: parts.map((part) => ({
        vendorId: part.vendorId,
        vendorAmount: minorToAmount(part.amountMinor, currency),
      })),
    },
  };
}
