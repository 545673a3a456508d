import type Router from '@koa/router';
import {
  type AltTransaction,
  altTransactionIdInput,
  createAltTransactionInput,
  preNotificationInput,
  validateHidingIban,
} from '@paywire/contracts';
import type { Context } from 'koa';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.altTransaction;

/** The translations URL of a debit's pre-notification, on the base URL the client called (decisions.md). */
function withTranslationRef(ctx: Context, transaction: AltTransaction): AltTransaction {
  const ref = `${ctx.protocol}://${ctx.host}/services/2/translations/sepa/prenotification?transactionid=${encodeURIComponent(transaction.transactionId)}`;
  return {
    ...transaction,
    sepaDirectDebitTransaction: {
      ...transaction.sepaDirectDebitTransaction,
      preNotificationTranslationRef: ref,
    },
  };
}

/** SEPA direct debit (interface.md, endpoints 4 and 6). */
export function altTransactionRoutes(router: Router<MerchantState>, core: CoreClient): void {
  router.post('/alt-transactions', async (ctx) => {
    const input = validateHidingIban(createAltTransactionInput, readBody(ctx, shape));
    const transaction = await core.sepa.create.mutate(input, asMerchant(ctx.state));
    respond(ctx, 200, withTranslationRef(ctx, transaction), shape);
  });

  router.get('/alt-transactions/:transactionId', async (ctx) => {
    const input = validateHidingIban(altTransactionIdInput, ctx.params);
    respond(
      ctx,
      200,
      withTranslationRef(ctx, await core.sepa.get.query(input, asMerchant(ctx.state))),
      shape,
    );
  });

  router.get('/translations/sepa/prenotification', async (ctx) => {
    const { transactionid, language } = ctx.query;
    const input = validateHidingIban(preNotificationInput, {
      transactionId: transactionid,
      ...(language === undefined ? {} : { language }),
    });
    const translations = await core.sepa.preNotification.query(input, asMerchant(ctx.state));
    respond(ctx, 200, translations, xmlShapes.preNotification);
  });
}
