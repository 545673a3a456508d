import type { PaywireClient, RouterOutputs } from '@paywire/client';

export type SettlementReport = RouterOutputs['reports']['settlement'];

/** The day's settlement of the merchant the client's credential is bound to. */
export function fetchSettlementReport(client: PaywireClient, date: string): Promise<SettlementReport> {
  return client.reports.settlement.query({ date });
}

const columns = [
  ['cardSales', 'card sales'],
  ['cardRefunds', 'card refunds'],
  ['sepaSettled', 'SEPA settled'],
  ['sepaFailed', 'SEPA failed'],
  ['sepaRefunds', 'SEPA refunds'],
] as const;

/** A plain-text table: one row per currency, count and amount per column, and the net. */
export function formatSettlementReport(report: SettlementReport): string {
  const header = ['currency', ...columns.map(([, title]) => title), 'net'];
  const rows = report.currencies.map((day) => [
    day.currency,
    ...columns.map(([key]) => `${day[key].count} / ${day[key].amount}`),
    day.net,
  ]);
  const widths = header.map((title, n) => Math.max(title.length, ...rows.map((row) => row[n]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((cell, n) => cell.padEnd(widths[n] ?? 0))
      .join('  ')
      .trimEnd();
  const body = rows.length === 0 ? ['nothing settled'] : rows.map(line);
  return [`Settlement report for ${report.date} (UTC)`, line(header), ...body].join('\n');
}
