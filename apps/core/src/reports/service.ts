import { type CurrencySettlement, minorToDecimal, type SettlementReport } from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { executePrepared } from '../db/wire.ts';

type Kind = 'cardSales' | 'cardRefunds' | 'sepaSettled' | 'sepaFailed' | 'sepaRefunds';

interface TotalRow {
  kind: Kind;
  currency: string;
  count: number;
  amount_minor: string;
}

/**
 * What moved on the day: card transactions captured (by authorization time: a sale authorizes and captures
 * at once), card refunds, SEPA debits the bank settled or refused, SEPA refunds and returns.
 */
const dayTotals = `
  select 'cardSales' as kind, currency, count(*)::int as count, sum(captured_minor)::text as amount_minor
    from card_transaction
   where merchant_id = $1 and status = 'CAPTURED' and authorized_at >= $2::timestamptz and authorized_at < $3::timestamptz
   group by currency
  union all
  select 'cardRefunds', t.currency, count(*)::int, sum(r.amount_minor)::text
    from refund r join card_transaction t on t.id = r.transaction_id
   where r.merchant_id = $1 and r.created_at >= $2::timestamptz and r.created_at < $3::timestamptz
   group by t.currency
  union all
  select case when status = 'FAIL' then 'sepaFailed' else 'sepaSettled' end, currency, count(*)::int,
         sum(amount_minor)::text
    from sepa_debit
   where merchant_id = $1 and settled_at >= $2::timestamptz and settled_at < $3::timestamptz
   group by 1, currency
  union all
  select 'sepaRefunds', d.currency, count(*)::int, sum(r.amount_minor)::text
    from sepa_refund r join sepa_debit d on d.id = r.debit_id
   where r.merchant_id = $1 and r.created_at >= $2::timestamptz and r.created_at < $3::timestamptz
   group by d.currency`;

const signedDecimal = (minor: number, currency: string) =>
  `${minor < 0 ? '-' : ''}${minorToDecimal(Math.abs(minor), currency)}`;

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
