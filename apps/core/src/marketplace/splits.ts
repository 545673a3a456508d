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
import { executeParameterized, sendWithNext } from '../db/wire.ts';
import { Vendor } from './entities.ts';
import { insertSplits, splitsOf } from './queries.ts';

/** One vendor's commission on a payment, as it was asked for: a percent (or the agreement's), or an amount. */
export interface SplitTerm {
  vendorId: number;
  /** The commission as hundredths of a percent (sent, or the vendor agreement's); null for an amount. */
  hundredths: number | null;
  amountMinor: number | null;
}

/**
 * A split's terms, validated, before any amount is charged: a subscription keeps them for each of its
 * charges. `listed` when the request sent vendorsInfo (the answer uses the same form).
 */
export interface SplitTerms {
  listed: boolean;
  parts: SplitTerm[];
}

/** One vendor's part of a transaction: its terms, and what they come to in minor units. */
export interface SplitPart extends SplitTerm {
  shareMinor: number;
}

/** A transaction's split: its terms applied to its amount. */
export interface Split {
  listed: boolean;
  parts: SplitPart[];
}

type SplitRequest = {
  vendorInfo?: VendorInfoInput | undefined;
  vendorsInfo?: { vendorInfo: VendorInfoInput[] } | undefined;
};

const vendorProperty = (index: number, listed: boolean, name = 'vendorId') =>
  listed ? `vendorsInfo.vendorInfo.${index}.${name}` : `vendorInfo.${name}`;

/**
 * Checks a payment's vendors as the reference does, before anything is charged: each once (14035), each the
 * merchant's (20050), active (20052) and not declined (20053), with a commission (sent or the agreement's),
 * and all shares together within each of the amounts it will split (14037: a sale's amount; a
 * subscription's first and recurring charges).
 */
export async function resolveSplitTerms(
  em: EntityManager,
  merchantId: number,
  request: SplitRequest,
  money: { amountsMinor: readonly number[]; currency: string },
): Promise<SplitTerms | null> {
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
  const parts = sent.map((info, index): SplitTerm => {
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
      return { vendorId: vendor.id, hundredths: null, amountMinor };
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
    return { vendorId: vendor.id, hundredths, amountMinor: null };
  });
  const terms = { listed, parts };
  requireWithin(terms, money.amountsMinor);
  return terms;
}

/** 14037 unless the terms' percents stay within 100 and their shares within each amount (0 splits nothing). */
export function requireWithin(terms: SplitTerms, amountsMinor: readonly number[]): void {
  const percents = terms.parts.reduce((sum, part) => sum + (part.hundredths ?? 0), 0);
  const exceeds = (amountMinor: number) =>
    amountMinor > 0 && terms.parts.reduce((sum, part) => sum + shareOf(part, amountMinor), 0) > amountMinor;
  if (percents > 10_000 || amountsMinor.some(exceeds)) {
    throw new DomainError(
      'VENDOR_COMMISSION_EXCEEDED',
      "the vendors' commissions together exceed 100% or the amount of the payment",
      { name: terms.listed ? 'vendorsInfo' : 'vendorInfo' },
    );
  }
}

/** A percent share is rounded down to the minor unit, so a vendor never gets more than its percent. */
const shareOf = (term: SplitTerm, amountMinor: number) =>
  term.amountMinor ?? Math.floor((amountMinor * (term.hundredths ?? 0)) / 10_000);

/**
 * The terms applied to one payment's amount. Within the amounts the terms were checked against, every share
 * is as asked; a later charge smaller than its vendors' amounts (a subscription's quantity lowered since)
 * splits what it has, in the terms' order, so the vendors never get more than the payment.
 */
export function splitOf(terms: SplitTerms, amountMinor: number): Split {
  let left = amountMinor;
  const parts = terms.parts.map((term): SplitPart => {
    const shareMinor = Math.min(shareOf(term, amountMinor), left);
    left -= shareMinor;
    return { ...term, shareMinor };
  });
  return { listed: terms.listed, parts };
}

/** resolveSplitTerms for one payment, applied to its amount. */
export async function resolveSplit(
  em: EntityManager,
  merchantId: number,
  request: SplitRequest,
  money: { amountMinor: number; currency: string },
): Promise<Split | null> {
  const terms = await resolveSplitTerms(em, merchantId, request, {
    amountsMinor: [money.amountMinor],
    currency: money.currency,
  });
  return terms && splitOf(terms, money.amountMinor);
}

/**
 * Writes a payment's split in the transaction that writes the payment; the insert travels with the
 * transaction's next statement (no round trip of its own: a renewal batch's charges wait for none).
 */
export async function recordSplit(
  em: EntityManager,
  merchantId: number,
  transactionId: number,
  split: Split,
): Promise<void> {
  const { parts } = split;
  await sendWithNext(em, insertSplits, [
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
export function presentSplit(split: SplitTerms, currency: string): SplitShown {
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
