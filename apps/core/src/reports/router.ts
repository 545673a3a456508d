import { openReportInput, reportRowsInput, settlementReportInput } from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { openReport, readReportRows } from './read.ts';
import { settlementReport } from './service.ts';

/** Reports: queries, so a read-only credential may run them. */
export const reportsRouter = router({
  settlement: merchantProcedure
    .input(settlementReportInput)
    .query(({ ctx, input }) => settlementReport(ctx, input.date)),
  /** The Reporting API's report before its rows: window, row count, totals. */
  open: merchantProcedure.input(openReportInput).query(({ ctx, input }) => openReport(ctx, input)),
  /** A batch of a report's rows after a cursor: the facade streams a report batch by batch. */
  rows: merchantProcedure.input(reportRowsInput).query(({ ctx, input }) => readReportRows(ctx, input)),
});
