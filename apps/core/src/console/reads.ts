import {
  type Dashboard,
  minorToAmount,
  type TransactionSearch,
  type TransactionSearchPage,
  toMinorUnits,
} from '@paywire/contracts';
import { addSeconds, callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { callFacts } from '../merchants/facts.ts';
import {
  authorizationsByDay,
  declinesByReason,
  deliveriesByState,
  searchTransactions,
  volumeByDay,
} from './queries.ts';

interface TransactionRow {
  id: string;
  merchant_transaction_id: string | null;
  status: string;
  type: string;
  currency: string;
  amount_minor: string;
  captured_minor: string;
  refunded_minor: string;
  authorized_at: Date | string;
  last_four: string | null;
  brand: string | null;
}

/** What the search shows as a transaction's status: a refund shows over the card status it follows. */
function shownStatus(row: TransactionRow): string {
  const refunded = Number(row.refunded_minor);
  if (refunded === 0) return row.status;
  return refunded === Number(row.captured_minor) ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
}

/** The console's transaction search, a page at a time (one more row tells the last page). */
export async function searchCardTransactions(
  ctx: MerchantContext,
  search: TransactionSearch,
): Promise<TransactionSearchPage> {
  // Without a currency an amount is read with two decimals, the usual case; a currency decides otherwise.
  const amountMinor =
    search.amount === undefined ? null : toMinorUnits(search.amount, search.currency ?? 'USD');
  const rows = await executeParameterized<TransactionRow>(ctx.em, searchTransactions, [
    ctx.merchantId,
    search.after ?? null,
    search.transactionId ?? null,
    search.merchantTransactionId ?? null,
    search.lastFour ?? null,
    amountMinor,
    search.currency ?? null,
    search.status ?? null,
    search.from ?? null,
    search.to ?? null,
    search.pagesize + 1,
  ]);
  const page = rows.slice(0, search.pagesize);
  const last = page.at(-1);
  return {
    transactions: page.map((row) => ({
      transactionId: Number(row.id),
      merchantTransactionId: row.merchant_transaction_id,
      status: shownStatus(row),
      cardTransactionType: row.type,
      currency: row.currency,
      amount: minorToAmount(Number(row.amount_minor), row.currency),
      capturedAmount: minorToAmount(Number(row.captured_minor), row.currency),
      refundedAmount: minorToAmount(Number(row.refunded_minor), row.currency),
      cardLastFourDigits: row.last_four,
      cardType: row.brand,
      date: new Date(row.authorized_at).toISOString(),
    })),
    ...(rows.length > search.pagesize && last ? { nextAfter: Number(last.id) } : {}),
  };
}

const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** The dashboard's figures for the last `days` days, today (the merchant's clock) included. */
export async function dashboard(ctx: MerchantContext, days: number): Promise<Dashboard> {
  const now = await callNow(ctx, ctx.em);
  const { offsetSeconds } = await callFacts(ctx, ctx.em);
  const first = new Date(`${dayOf(addSeconds(now, -(days - 1) * 86_400))}T00:00:00Z`);
  const dayList = Array.from({ length: days }, (_, index) => dayOf(addSeconds(first, index * 86_400)));
  const position = new Map(dayList.map((day, index) => [day, index]));
  const [volume, authorizations, declines, deliveries] = await Promise.all([
    executeParameterized<{ day: string; currency: string; captured_minor: string }>(ctx.em, volumeByDay, [
      ctx.merchantId,
      first,
    ]),
    executeParameterized<{ day: string; approved: number; declined: number }>(ctx.em, authorizationsByDay, [
      ctx.merchantId,
      first,
      offsetSeconds,
    ]),
    executeParameterized<{ reason: string; count: number }>(ctx.em, declinesByReason, [
      ctx.merchantId,
      first,
      offsetSeconds,
    ]),
    executeParameterized<{ state: string; count: number }>(ctx.em, deliveriesByState, [
      ctx.merchantId,
      first,
      offsetSeconds,
    ]),
  ]);
  const volumes = new Map<string, number[]>();
  for (const row of volume) {
    const index = position.get(row.day);
    if (index === undefined) continue; // after today on the merchant's clock: a later clock's sale
    const amounts = volumes.get(row.currency) ?? Array<number>(days).fill(0);
    amounts[index] = minorToAmount(Number(row.captured_minor), row.currency);
    volumes.set(row.currency, amounts);
  }
  const approved = Array<number>(days).fill(0);
  const declined = Array<number>(days).fill(0);
  for (const row of authorizations) {
    const index = position.get(row.day);
    if (index === undefined) continue;
    approved[index] = row.approved;
    declined[index] = row.declined;
  }
  return {
    days: dayList,
    volume: [...volumes].map(([currency, amounts]) => ({ currency, amounts })),
    approvals: { approved, declined },
    declinesByReason: declines,
    deliveries,
  };
}
