import type Router from '@koa/router';
import { auditEventQuery, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

/** The merchant's audit trail (ours; the interface has none): a page of its events, newest first. */
export function auditEventRoutes(router: Router<MerchantState>, core: CoreClient): void {
  router.get('/audit-events', async (ctx) => {
    const query = validate(auditEventQuery, ctx.query);
    respond(ctx, 200, await core.audit.events.query(query, asMerchant(ctx.state)), xmlShapes.auditLog);
  });
}
