import { type CurrencySettlement, minorToDecimal, type SettlementReport } from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { executePrepared } from '../db/wire.ts';
import { signedDecimal } from './decimal.ts';
import { dayTotals } from './queries.ts';

type Kind = 'cardSales' | 'cardRefunds' | 'sepaSettled' | 'sepaFailed' | 'sepaRefunds';

interface TotalRow {
  kind: Kind;
  currency: string;
  count: number;
  amount_minor: string;
}

/** A day's settlement for the call's merchant, one entry per currency that moved. */
export async function settlementReport(ctx: MerchantContext, date: string): Promise<SettlementReport> {
  const from = new Date(`${date}T00:00:00Z`);
  const to = new Date(from.getTime() + 86_400_000);
  const rows = await executePrepared<TotalRow>(ctx.em, dayTotals, [ctx.merchantId, from, to]);
  const byCurrency = new Map<string, Record<Kind, number> & { counts: Record<Kind, number> }>();
  for (const row of rows) {
    const zero = { cardSales: 0, cardRefunds: 0, sepaSettled: 0, sepaFailed: 0, sepaRefunds: 0 };
    const totals = byCurrency.get(row.currency) ?? { ...zero, counts: { ...zero } };
    totals[row.kind] = Number(row.amount_minor);
    totals.counts[row.kind] = row.count;
    byCurrency.set(row.currency, totals);
  }
  const currencies = [...byCurrency]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, totals]): CurrencySettlement => {
      const entry = (kind: Kind) => ({
        count: totals.counts[kind],
        amount: minorToDecimal(totals[kind], currency),
      });
      const net = totals.cardSales - totals.cardRefunds + totals.sepaSettled - totals.sepaRefunds;
      return {
        currency,
        cardSales: entry('cardSales'),
        cardRefunds: entry('cardRefunds'),
        sepaSettled: entry('sepaSettled'),
        sepaFailed: entry('sepaFailed'),
        sepaRefunds: entry('sepaRefunds'),
        net: signedDecimal(net, currency),
      };
    });
  return { date, currencies };
}
