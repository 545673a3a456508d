import { Readable } from 'node:stream';
import type Router from '@koa/router';
import {
  DomainError,
  decodePageToken,
  encodePageToken,
  type ReportBatch,
  type ReportCursor,
  type ReportPlan,
  type ReportQuery,
  type ReportRowsInput,
  reportQuery,
  validate,
} from '@paywire/contracts';
import type { Logger } from '@paywire/observability';
import type { Context } from 'koa';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { type ReportFormat, reportDocument, reportMediaTypes } from '../http/report-documents.ts';
import { route } from '../http/route.ts';
import { file } from '../openapi/operation.ts';
import type { MerchantState } from './state.ts';

/** Rows asked of core at a time while a whole report streams. */
const streamBatchRows = 1000;

/** One request's report: what it reads, from where, and whether it is a page. */
interface ReportRequest {
  rows: Omit<ReportRowsInput, 'limit' | 'after'>;
  after: ReportCursor | null;
  period: Pick<ReportQuery, 'period' | 'from_date' | 'to_date' | 'from_time' | 'to_time'>;
  withTotals: boolean;
  page: { startRow: number; size: number } | undefined;
}

/**
 * The original's Reporting API: `GET /report/{reportCode}` with its query parameters, JSON or CSV
 * (docs/reports.md). Without pageSize the whole report streams, a batch of rows from core at a time;
 * with it, one page and the original's paging headers.
 */
export function reportRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'GET',
      path: '/report/:reportCode',
      tag: 'Reporting',
      summary: "Report data in JSON or CSV, the original's report codes and query parameters",
      description:
        'Report codes TransactionDetail, RecurringCharges, ActiveSubscriptions, PendingRefunds, Chargebacks, ' +
        'AccountBalance, PayoutSummary (SEPA settlement), PayoutDetail (vendor payouts) and VendorBalance. Periods and dates are read in UTC-8 (PST, no ' +
        'daylight saving) on the merchant clock. Without pageSize the whole report streams; with it, one page ' +
        'and next-page-token for the next (docs/reports.md).',
      params: reportQuery,
      query: reportQuery,
      answers: [
        {
          ...file(
            ['application/json', 'text/csv'],
            'The report: JSON unless format=csv or Accept prefers text/csv',
          ),
          headers: {
            'total-row-count': 'Rows in the whole report',
            'start-row': 'The first row of this answer, from 1',
            'page-size': 'The page size asked for (paged requests only)',
            'next-page-token': 'Pass as nextPageToken for the next page; absent on the last page',
          },
        },
      ],
    },
    async (ctx, declaration) => {
      const query = validate(declaration.query, { ...ctx.query, reportCode: ctx.params.reportCode });
      const request = query.nextPageToken === undefined ? firstRequest(query) : nextRequest(query);
      const call = asMerchant(ctx.state);
      const plan = await core.reports.open.query(
        {
          reportCode: request.rows.reportCode,
          filters: request.rows.filters,
          period: request.period,
          window: request.rows.window ?? undefined,
          withTotals: request.withTotals,
        },
        call,
      );
      const read: ReadRows = (after, limit) =>
        core.reports.rows.query({ ...request.rows, window: plan.window, after, limit }, call);
      const format = reportFormat(ctx, query.format);

      if (request.page === undefined) {
        // the first batch before the status line: a failure there is still an error answer
        const first = await read(request.after, streamBatchRows);
        answerWith(ctx, format, plan, request.rows.reportCode, { 'start-row': '1' });
        ctx.body = Readable.from(reportDocument(format, plan, batchesFrom(first, read, ctx.state.log)));
        return;
      }
      const { startRow, size } = request.page;
      const batch = await read(request.after, size);
      const nextStartRow = startRow + batch.rows.length;
      const nextAfter = nextStartRow <= plan.totalRowCount ? batch.last : null;
      answerWith(ctx, format, plan, request.rows.reportCode, {
        'page-size': String(size),
        'start-row': String(startRow),
        ...(nextAfter
          ? {
              'next-page-token': encodePageToken({
                ...request.rows,
                window: plan.window,
                after: nextAfter,
                startRow: nextStartRow,
                pageSize: size,
                withTotals: request.withTotals,
              }),
            }
          : {}),
      });
      ctx.body = await collect(reportDocument(format, plan, once(batch.rows)));
    },
  );
}

type ReadRows = (after: ReportCursor | null, limit: number) => Promise<ReportBatch>;

/** The answer's headers, set once its first rows are in hand. */
function answerWith(
  ctx: Context,
  format: ReportFormat,
  plan: ReportPlan,
  reportCode: string,
  headers: Record<string, string>,
) {
  ctx.set({ 'total-row-count': String(plan.totalRowCount), ...headers });
  if (format === 'csv') ctx.attachment(`${reportCode}.csv`);
  ctx.type = reportMediaTypes[format];
}

/** The whole report's rows, batch after batch from the first until one comes back short. */
async function* batchesFrom(first: ReportBatch, read: ReadRows, log: Logger): AsyncGenerator<string[][]> {
  let batch = first;
  try {
    for (;;) {
      yield batch.rows;
      if (batch.rows.length < streamBatchRows || batch.last === null) return;
      batch = await read(batch.last, streamBatchRows);
    }
  } catch (error) {
    // the status line is gone: the client sees the answer cut short, and only the log says why
    log.error({ error }, 'report stream failed after its headers were sent');
    throw error;
  }
}

function firstRequest(query: ReportQuery): ReportRequest {
  const { reportCode, currency, transactionType, paymentType, chargeStatus } = query;
  return {
    rows: { reportCode, filters: { currency, transactionType, paymentType, chargeStatus }, window: null },
    after: null,
    period: {
      period: query.period,
      from_date: query.from_date,
      to_date: query.to_date,
      from_time: query.from_time,
      to_time: query.to_time,
    },
    withTotals: query.gettotal === 'true',
    page: query.pageSize === undefined ? undefined : { startRow: 1, size: query.pageSize },
  };
}

/** A later page: everything but the format comes from the token, as the original has it. */
function nextRequest(query: ReportQuery): ReportRequest {
  const token = decodePageToken(query.nextPageToken ?? '');
  if (token === undefined || token.reportCode !== query.reportCode) {
    throw new DomainError('INVALID_INPUT', 'nextPageToken: not a page token of this report', {
      name: 'nextPageToken',
    });
  }
  return {
    rows: { reportCode: token.reportCode, filters: token.filters, window: token.window },
    after: token.after,
    period: {},
    withTotals: token.withTotals,
    page: { startRow: token.startRow, size: token.pageSize },
  };
}

/** `format=csv` or `format=json` decides; else CSV when Accept prefers text/csv to JSON. */
function reportFormat(ctx: Context, format: ReportFormat | undefined): ReportFormat {
  if (format !== undefined) return format;
  const preferred = ctx.accepts('application/json', 'text/csv');
  return preferred === 'text/csv' ? 'csv' : 'json';
}

async function* once(rows: string[][]) {
  yield rows;
}

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return text;
}
