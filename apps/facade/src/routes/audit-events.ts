import type Router from '@koa/router';
import { auditEventPageBody, auditEventQuery, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

/** The merchant's audit trail (ours; the interface has none): a page of its events, newest first. */
export function auditEventRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'GET',
      path: '/audit-events',
      tag: 'Audit trail',
      summary: "The merchant's audit events, newest first, a page at a time",
      description:
        'Ours: logins, password changes, caller credentials, IPN configuration and secret, processor accounts, captures, reversals and refunds, each with its actor, client address, request id, outcome and its link in the hash chain.',
      query: auditEventQuery,
      answers: [ok('A page of events', body('AuditEventPage', auditEventPageBody, xmlShapes.auditLog))],
    },
    async (ctx, { query }) => {
      const input = validate(query, ctx.query);
      respond(ctx, 200, await core.audit.events.query(input, asMerchant(ctx.state)), xmlShapes.auditLog);
    },
  );
}
