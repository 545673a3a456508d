import type Router from '@koa/router';
import { consoleUserBody, createConsoleUserInput, validate } from '@paywire/contracts';
import { z } from 'zod';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

/**
 * Partner users (see docs/conformance.md, Partner users): a console user of the calling merchant, or with
 * `onbehalfofmid` of a merchant the caller is a partner of. As the reference: 200 with the user, its id in
 * the body and in Location.
 */
export function partnerRoutes(router: Router<MerchantState>, core: CoreClient): void {
  route(
    router,
    {
      method: 'POST',
      path: '/cp/user',
      tag: 'Partners',
      summary:
        "Create a console user of the merchant, or with onbehalfofmid of a merchant the caller is a partner of (the original's Create User)",
      query: z.object({ onbehalfofmid: createConsoleUserInput.shape.onBehalfOfMid }),
      request: body('CreateConsoleUser', createConsoleUserInput, xmlShapes.consoleUser),
      answers: [
        {
          status: 200,
          description: 'The user (never its password)',
          body: body('ConsoleUser', consoleUserBody, xmlShapes.consoleUser),
          headers: { Location: 'The user URL' },
        },
      ],
    },
    async (ctx, { request }) => {
      const { onbehalfofmid } = ctx.query;
      const input = validate(request.schema, {
        ...readBody(ctx, request.shape),
        ...(onbehalfofmid === undefined || onbehalfofmid === '' ? {} : { onBehalfOfMid: onbehalfofmid }),
      });
      const { merchantId: _, ...user } = await core.partners.createUser.mutate(input, asMerchant(ctx.state));
      ctx.set('Location', publicUrl(ctx, `/services/2/cp/user/${user.userId}`));
      respond(ctx, 200, user, xmlShapes.consoleUser);
    },
  );
}
