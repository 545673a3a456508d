import {
  DomainError,
  type OpenReportInput,
  type ReportBatch,
  type ReportCursor,
  type ReportFilters,
  type ReportPlan,
  type ReportRowsInput,
  type ReportTotal,
  type ReportWindow,
} from '@paywire/contracts';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { bound } from './bound.ts';
import { type ReportDefinition, reportCatalogue } from './catalogue.ts';
import { signedDecimal } from './decimal.ts';
import { reportCount, reportPage, reportTotals } from './queries.ts';
import { checkedWindow, dateRangeOf, resolveWindow } from './window.ts';

/** Before the first row: the report starts before every row. */
const beforeFirstRow: ReportCursor = { at: '-infinity', rank: 0, id: '0' };

type SourceRow = Record<string, unknown> & {
  currency: string;
  k_rank: number;
  k_id: string;
  cursor_at: string;
};

function parameters(ctx: MerchantContext, filters: ReportFilters, window: ReportWindow | null) {
  return {
    merchant: ctx.merchantId,
    from: window?.from ?? null,
    to: window?.to ?? null,
    currency: filters.currency ?? null,
    transactionType: filters.transactionType ?? null,
    paymentType: filters.paymentType ?? null,
    chargeStatus: filters.chargeStatus ?? null,
  };
}

async function run<T>(ctx: MerchantContext, sql: string, values: Record<string, unknown>): Promise<T[]> {
  const { text, params } = bound(sql, values);
  return executeParameterized<T>(ctx.em, text, params);
}

/**
 * What a report will be: its window (from the period by the merchant's clock, or the one a page token
 * froze), how many rows it has and, when asked, its totals per currency.
 */
export async function openReport(ctx: MerchantContext, input: OpenReportInput): Promise<ReportPlan> {
  const report = reportCatalogue[input.reportCode];
  const window = report.windowed ? await windowOf(ctx, input) : null;
  const values = parameters(ctx, input.filters, window);
  const [counted] = await run<{ count: number }>(ctx, reportCount(report.source(false)), values);
  return {
    title: report.title,
    columns: [...report.columns],
    params: paramsOf(input, window, ctx.merchantId),
    dateRange: window ? dateRangeOf(window) : null,
    window,
    totalRowCount: counted?.count ?? 0,
    totals: input.withTotals ? await totalsOf(ctx, report, values) : null,
  };
}

async function windowOf(ctx: MerchantContext, input: OpenReportInput): Promise<ReportWindow> {
  if (input.window) return checkedWindow(input.window);
  return resolveWindow(input.period, await callNow(ctx, ctx.em));
}

interface TotalRow {
  currency: string;
  row_count: number;
  total_minor: string;
}

async function totalsOf(
  ctx: MerchantContext,
  report: ReportDefinition,
  values: Record<string, unknown>,
): Promise<ReportTotal[]> {
  const rows = await run<TotalRow>(ctx, reportTotals(report.source(false)), values);
  return rows.map((row) => ({
    currency: row.currency,
    rowCount: row.row_count,
    amount: signedDecimal(row.total_minor, row.currency),
  }));
}

/** The original's `params`: the period and filters the report ran with. */
function paramsOf(
  input: OpenReportInput,
  window: ReportWindow | null,
  merchantId: number,
): ReportPlan['params'] {
  const [fromDate, toDate] = window ? dateRangeOf(window).split(' - ') : [];
  const named: [string, string | undefined][] = [
    ['Period', window ? (input.window ? 'CUSTOM' : input.period.period) : undefined],
    ['From date', fromDate],
    ['To date', toDate],
    ['Currency', input.filters.currency],
    ['Transaction Type', input.filters.transactionType],
    ['Payment Type', input.filters.paymentType],
    ['Charge Status', input.filters.chargeStatus],
    ['Merchant Id', String(merchantId)],
  ];
  return named.flatMap(([name, value]) => (value === undefined ? [] : [{ name, value }]));
}

/** Up to `limit` rows after a cursor, each as its values in column order (text; money in its decimals). */
export async function readReportRows(ctx: MerchantContext, input: ReportRowsInput): Promise<ReportBatch> {
  const report = reportCatalogue[input.reportCode];
  if (report.windowed !== (input.window !== null)) {
    throw new DomainError(
      'INVALID_INPUT',
      report.windowed ? 'the report needs a period' : 'the report takes no period',
    );
  }
  const after = input.after ?? beforeFirstRow;
  const rows = await run<SourceRow>(ctx, reportPage(report.source(true)), {
    ...parameters(ctx, input.filters, input.window && checkedWindow(input.window)),
    afterAt: after.at,
    afterRank: after.rank,
    afterId: after.id,
    limit: input.limit,
  });
  const last = rows.at(-1);
  return {
    rows: rows.map((row) => valuesOf(report, row)),
    last: last ? { at: last.cursor_at, rank: Number(last.k_rank), id: String(last.k_id) } : null,
  };
}

function valuesOf(report: ReportDefinition, row: SourceRow): string[] {
  return report.columns.map((column) => {
    const value = row[column];
    if (value === null || value === undefined) return '';
    return report.moneyColumns.includes(column) ? signedDecimal(String(value), row.currency) : String(value);
  });
}
