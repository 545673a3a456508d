import type { EntityManager } from '@mikro-orm/postgresql';
import {
  amountInMinorUnits,
  DomainError,
  minorToAmount,
  percentHundredths,
  type SplitShown,
  type VendorInfo,
  type VendorInfoInput,
} from '@paywire/contracts';
import { executeParameterized } from '../db/wire.ts';
import { Vendor } from './entities.ts';
import { insertSplits, splitsOf } from './queries.ts';

/** One vendor's part of a transaction: how it was asked for, and what it comes to in minor units. */
export interface SplitPart {
  vendorId: number;
  /** The commission as hundredths of a percent (sent, or the vendor agreement's); null for an amount. */
  hundredths: number | null;
  amountMinor: number | null;
  shareMinor: number;
}

/** A transaction's split: `listed` when the request sent vendorsInfo (the answer uses the same form). */
export interface Split {
  listed: boolean;
  parts: SplitPart[];
}

const vendorProperty = (index: number, listed: boolean, name = 'vendorId') =>
  listed ? `vendorsInfo.vendorInfo.${index}.${name}` : `vendorInfo.${name}`;

/**
 * Checks a sale's vendors as the reference does, before anything is charged: each once (14035), each the
 * merchant's (20050), active (20052) and not declined (20053), with a commission (sent or the agreement's),
 * and all shares together within the sale's amount (14037). A percent share is rounded down to the minor
 * unit, so a vendor never gets more than its percent.
 */
export async function resolveSplit(
  em: EntityManager,
  merchantId: number,
  request: {
    vendorInfo?: VendorInfoInput | undefined;
    vendorsInfo?: { vendorInfo: VendorInfoInput[] } | undefined;
  },
  money: { amountMinor: number; currency: string },
): Promise<Split | null> {
  const listed = request.vendorsInfo !== undefined;
  const sent = request.vendorsInfo?.vendorInfo ?? (request.vendorInfo ? [request.vendorInfo] : []);
  if (sent.length === 0) return null;
  const seen = new Set<number>();
  sent.forEach((info, index) => {
    if (seen.has(info.vendorId)) {
      throw new DomainError('DUPLICATE_VENDOR', `vendor ${info.vendorId} is named more than once`, {
        name: vendorProperty(index, listed),
        messageValue: String(info.vendorId),
      });
    }
    seen.add(info.vendorId);
  });
  const vendors = new Map(
    (await em.find(Vendor, { merchantId, id: { $in: [...seen] } })).map((vendor) => [vendor.id, vendor]),
  );
  const parts = sent.map((info, index): SplitPart => {
    const at = (name?: string) => ({
      name: vendorProperty(index, listed, name),
      messageValue: String(info.vendorId),
    });
    const vendor = vendors.get(info.vendorId);
    if (!vendor) {
      throw new DomainError(
        'UNAUTHORIZED_USE_OF_VENDOR',
        `the merchant is not authorized to act on vendor ${info.vendorId}`,
        at(),
      );
    }
    if (vendor.accountStatus !== 'ACTIVE')
      throw new DomainError('INACTIVE_VENDOR', `vendor ${vendor.id} is inactive`, at());
    if (vendor.payoutStatus === 'Declined')
      throw new DomainError('DECLINED_VENDOR', `vendor ${vendor.id} is not approved for processing`, at());
    if (info.commissionAmount !== undefined) {
      const amountMinor = amountInMinorUnits(
        info.commissionAmount,
        money.currency,
        vendorProperty(index, listed, 'commissionAmount'),
      );
      return { vendorId: vendor.id, hundredths: null, amountMinor, shareMinor: amountMinor };
    }
    const hundredths =
      info.commissionPercent !== undefined
        ? percentHundredths(info.commissionPercent)
        : (vendor.commissionHundredths ?? null);
    if (hundredths === null) {
      throw new DomainError(
        'VALIDATION_GENERAL_FAILURE',
        `vendor ${vendor.id} has no commission percent in its agreement: send commissionPercent or commissionAmount`,
        at('commissionPercent'),
      );
    }
    const shareMinor = Math.floor((money.amountMinor * hundredths) / 10_000);
    return { vendorId: vendor.id, hundredths, amountMinor: null, shareMinor };
  });
  const shares = parts.reduce((sum, part) => sum + part.shareMinor, 0);
  const percents = parts.reduce((sum, part) => sum + (part.hundredths ?? 0), 0);
  if (shares > money.amountMinor || percents > 10_000) {
    throw new DomainError(
      'VENDOR_COMMISSION_EXCEEDED',
      "the vendors' commissions together exceed 100% or the amount of the sale",
      { name: listed ? 'vendorsInfo' : 'vendorInfo' },
    );
  }
  return { listed, parts };
}

/** Writes a sale's split in the transaction that writes the sale. */
export async function recordSplit(
  em: EntityManager,
  merchantId: number,
  transactionId: number,
  split: Split,
): Promise<void> {
  const { parts } = split;
  await executeParameterized(em, insertSplits, [
    transactionId,
    merchantId,
    split.listed,
    parts.map((part) => part.vendorId),
    parts.map((part) => part.hundredths),
    parts.map((part) => part.amountMinor),
    parts.map((part) => part.shareMinor),
  ]);
}

/** The split as an answer shows it: `vendorsInfo` or `vendorInfo`, whichever the request sent. */
export function presentSplit(split: Split, currency: string): SplitShown {
  const shown = split.parts.map(
    (part): VendorInfo =>
      part.amountMinor !== null
        ? { vendorId: part.vendorId, commissionAmount: minorToAmount(part.amountMinor, currency) }
        : { vendorId: part.vendorId, commissionPercent: (part.hundredths ?? 0) / 100 },
  );
  const [only] = shown;
  return split.listed || !only ? { vendorsInfo: { vendorInfo: shown } } : { vendorInfo: only };
}

interface SplitRow {
  transaction_id: string;
  vendor_id: number;
  listed: boolean;
  commission_hundredths: number | null;
  commission_amount_minor: number | null;
  share_minor: number;
}

/** The recorded splits of some of the merchant's transactions, by transaction id. */
export async function splitsFor(
  em: EntityManager,
  merchantId: number,
  transactionIds: readonly number[],
): Promise<Map<number, Split>> {
  const rows = await executeParameterized<SplitRow>(em, splitsOf, [merchantId, transactionIds]);
  const splits = new Map<number, Split>();
  for (const row of rows) {
    const id = Number(row.transaction_id);
    const split = splits.get(id) ?? { listed: row.listed, parts: [] };
    split.parts.push({
      vendorId: row.vendor_id,
      hundredths: row.commission_hundredths,
      amountMinor: row.commission_amount_minor,
      shareMinor: row.share_minor,
    });
    splits.set(id, split);
  }
  return splits;
}

/** A payment's recorded split as its retrieve answer shows it (nothing for a payment with no vendors). */
export async function shownSplitOf(
  em: EntityManager,
  merchantId: number,
  payment: { id: number; currency: string },
): Promise<SplitShown> {
  const split = (await splitsFor(em, merchantId, [payment.id])).get(payment.id);
  return split ? presentSplit(split, payment.currency) : {};
}
