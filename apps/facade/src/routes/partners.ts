import type Router from '@koa/router';
import { createConsoleUserInput, validate } from '@paywire/contracts';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

/**
 * Partner users (see docs/conformance.md, Partner users): a console user of the calling merchant, or with
 * `onbehalfofmid` of a merchant the caller is a partner of. As the reference: 200 with the user, its id in
 * the body and in Location.
 */
export function partnerRoutes(router: Router<MerchantState>, core: CoreClient): void {
  router.post('/cp/user', async (ctx) => {
    const { onbehalfofmid } = ctx.query;
    const input = validate(createConsoleUserInput, {
      ...readBody(ctx, xmlShapes.consoleUser),
      ...(onbehalfofmid === undefined || onbehalfofmid === '' ? {} : { onBehalfOfMid: onbehalfofmid }),
    });
    const { merchantId: _, ...user } = await core.partners.createUser.mutate(input, asMerchant(ctx.state));
    ctx.set('Location', publicUrl(ctx, `/services/2/cp/user/${user.userId}`));
    respond(ctx, 200, user, xmlShapes.consoleUser);
  });
}
