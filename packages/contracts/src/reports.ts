import { z } from 'zod';
import { isCurrency } from './money.ts';

export const settlementReportInput = z.object({
  /** The day, in UTC by the merchant's clock (sandbox offset included). */
  date: z.iso.date(),
});

export type SettlementReportInput = z.input<typeof settlementReportInput>;

/** How many, and their sum as exact decimal text. */
export interface SettlementTotals {
  count: number;
  amount: string;
}

/** One currency's day. `net` is captured sales and settled debits less card and SEPA refunds. */
export interface CurrencySettlement {
  currency: string;
  cardSales: SettlementTotals;
  cardRefunds: SettlementTotals;
  sepaSettled: SettlementTotals;
  sepaFailed: SettlementTotals;
  sepaRefunds: SettlementTotals;
  net: string;
}

export interface SettlementReport {
  date: string;
  currencies: CurrencySettlement[];
}

/**
 * The Reporting API (`GET /services/2/report/{reportCode}`): report codes, query parameters and paging as
 * the original gateway names them (docs/reports.md says where it was silent and what we chose).
 */
export const reportCodes = [
  'TransactionDetail',
  'RecurringCharges',
  'ActiveSubscriptions',
  'PendingRefunds',
  'Chargebacks',
  'AccountBalance',
  'PayoutSummary',
  'PayoutDetail',
  'VendorBalance',
] as const;
export type ReportCode = (typeof reportCodes)[number];

export const reportPeriods = [
  'THIS_MONTH',
  'LAST_WEEK',
  'LAST_MONTH',
  'LAST_3_MONTHS',
  'LAST_6_MONTHS',
  'LAST_12_MONTHS',
  'CUSTOM',
] as const;

/** The largest page the original answers, and ours. */
export const maxReportPageSize = 5000;

/** The original's error for report input it does not take: INVALID_INPUT (21001). */
const invalidInput = (message: string) => ({ message, params: { errorName: 'INVALID_INPUT' } });

/** A query parameter taking one of a few values. */
function oneOf<T extends string>(values: readonly T[]) {
  return z
    .string()
    .refine(
      (value): value is T => (values as readonly string[]).includes(value),
      invalidInput(`must be one of ${values.join(', ')}`),
    )
    .transform((value) => value as T);
}

/** MM/DD/YYYY or YYYY-MM-DD, as the original takes them; normalised to YYYY-MM-DD. */
const reportDate = z.string().transform((text, ctx) => {
  const us = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
  const iso = us ? `${us[3]}-${us[1]}-${us[2]}` : text;
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(iso) ? new Date(`${iso}T00:00:00Z`) : undefined;
  if (!parsed || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== iso) {
    ctx.addIssue({ code: 'custom', ...invalidInput('must be a date as MM/DD/YYYY or YYYY-MM-DD') });
    return z.NEVER;
  }
  return iso;
});

const reportTime = z
  .string()
  .refine(
    (text) => /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(text),
    invalidInput('must be a time as HH:mm:ss'),
  );

const pageSize = z.string().transform((text, ctx) => {
  const size = /^-?\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(size)) ctx.addIssue({ code: 'custom', ...invalidInput('must be an integer') });
  else if (size < 1)
    ctx.addIssue({
      code: 'custom',
      message: 'must be at least 1',
      params: { errorName: 'NEGATIVE_PAGE_SIZE' },
    });
  else if (size > maxReportPageSize) {
    ctx.addIssue({
      code: 'custom',
      message: `must be at most ${maxReportPageSize}`,
      params: { errorName: 'MAX_PAGE_SIZE_EXCEEDED' },
    });
  }
  return size;
});

/** The filters a report may take; a report ignores those it has no column for. */
export const reportFilters = z.object({
  currency: z
    .string()
    .refine((code) => isCurrency(code), invalidInput('must be a supported ISO 4217 currency code'))
    .optional(),
  transactionType: oneOf(['SALE', 'REFUND', 'CHARGEBACK'] as const).optional(),
  paymentType: oneOf(['Credit Card', 'Direct Debit'] as const).optional(),
  chargeStatus: oneOf(['Success', 'Failure'] as const).optional(),
});
export type ReportFilters = z.output<typeof reportFilters>;

/** The reporting period: a named one, or CUSTOM with dates (and times) in the reporting time zone. */
export const reportPeriodInput = z.object({
  period: oneOf(reportPeriods).optional(),
  from_date: reportDate.optional(),
  to_date: reportDate.optional(),
  from_time: reportTime.optional(),
  to_time: reportTime.optional(),
});
export type ReportPeriodInput = z.output<typeof reportPeriodInput>;

/** The facade's query string: unknown parameters are ignored, as everywhere in the interface. */
export const reportQuery = reportFilters.extend({
  ...reportPeriodInput.shape,
  reportCode: oneOf(reportCodes),
  format: oneOf(['json', 'csv'] as const).optional(),
  pageSize: pageSize.optional(),
  nextPageToken: z.string().max(2000, 'must be at most 2000 characters').optional(),
  gettotal: oneOf(['true', 'false'] as const).optional(),
});
export type ReportQuery = z.output<typeof reportQuery>;

/** The instants a report covers, from inclusive, to exclusive (ISO 8601, UTC). */
export const reportWindow = z.object({ from: z.iso.datetime(), to: z.iso.datetime() });
export type ReportWindow = z.output<typeof reportWindow>;

/** Where the last row read sits in the report's order: its time (PostgreSQL's exact text), kind and id. */
export const reportCursor = z.object({
  at: z.string().max(40),
  rank: z.number().int().min(0).max(9),
  id: z.string().regex(/^\d{1,19}$/),
});
export type ReportCursor = z.output<typeof reportCursor>;

/** Opening a report: the window from the period, or the window a page token froze. */
export const openReportInput = z.object({
  reportCode: z.enum(reportCodes),
  filters: reportFilters,
  period: reportPeriodInput,
  window: reportWindow.optional(),
  withTotals: z.boolean(),
});
export type OpenReportInput = z.output<typeof openReportInput>;

export const reportRowsInput = z.object({
  reportCode: z.enum(reportCodes),
  filters: reportFilters,
  window: reportWindow.nullable(),
  after: reportCursor.nullable(),
  limit: z.number().int().min(1).max(maxReportPageSize),
});
export type ReportRowsInput = z.output<typeof reportRowsInput>;

/** One currency's total over the whole report (gettotal=true). */
export interface ReportTotal {
  currency: string;
  rowCount: number;
  amount: string;
}

/** What a report is before its rows: enough for the headers and the document around the rows. */
export interface ReportPlan {
  title: string;
  columns: string[];
  /** The original's `params`: what the report was run with. */
  params: { name: string; value: string }[];
  /** The covered dates as the original writes them (MM/DD/YYYY - MM/DD/YYYY); null for a snapshot. */
  dateRange: string | null;
  window: ReportWindow | null;
  totalRowCount: number;
  totals: ReportTotal[] | null;
}

export interface ReportBatch {
  /** Each row's values in the plan's column order, as text. */
  rows: string[][];
  /** The last row's place; null when the batch is empty. */
  last: ReportCursor | null;
}

/**
 * A next-page token: what the first request asked, the window it froze and where the page ended. It names
 * nothing beyond the merchant's own query (core filters every read by the authenticated merchant anyway).
 */
export const reportPageToken = z.object({
  reportCode: z.enum(reportCodes),
  filters: reportFilters,
  window: reportWindow.nullable(),
  after: reportCursor,
  startRow: z.number().int().min(1),
  pageSize: z.number().int().min(1).max(maxReportPageSize),
  withTotals: z.boolean(),
});
export type ReportPageToken = z.output<typeof reportPageToken>;

export function encodePageToken(token: ReportPageToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

/** The token's contents, or undefined for anything this service did not hand out. */
export function decodePageToken(text: string): ReportPageToken | undefined {
  try {
    const parsed = reportPageToken.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
