import { settlementReportInput } from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { settlementReport } from './service.ts';

/** Reports for internal services: queries, so a read-only credential may run them. */
export const reportsRouter = router({
  settlement: merchantProcedure
    .input(settlementReportInput)
    .query(({ ctx, input }) => settlementReport(ctx, input.date)),
});
