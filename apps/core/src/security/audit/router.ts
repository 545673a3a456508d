import { auditEventQuery } from '@paywire/contracts';
import { merchantProcedure, router } from '../../trpc.ts';
import { listAuditEvents } from './log.ts';

/** The merchant's own audit events, newest first, a page at a time. */
export const auditRouter = router({
  events: merchantProcedure.input(auditEventQuery).query(({ ctx, input }) => listAuditEvents(ctx, input)),
});
