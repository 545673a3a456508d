import type Router from '@koa/router';
import {
  type AltTransaction,
  altTransactionIdInput,
  createAltTransactionInput,
  mandateTextInput,
  preNotificationInput,
  validate,
} from '@paywire/contracts';
import type { Context } from 'koa';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.altTransaction;

function withPublicLinks(ctx: Context, transaction: AltTransaction): AltTransaction {
  const debit = transaction.sepaDirectDebitTransaction;
  if (!debit) return transaction; // an ECP debit has no pre-notification
  return {
    ...transaction,
    sepaDirectDebitTransaction: {
      ...debit,
      preNotificationTranslationRef: publicUrl(ctx, debit.preNotificationTranslationRef),
    },
  };
}

/** SEPA direct debit (see docs/conformance.md, SEPA direct debit) and ECP/ACH (docs/ach.md). */
export function altTransactionRoutes(router: Router<MerchantState>, core: CoreClient): void {
  router.post('/alt-transactions', async (ctx) => {
    const input = validate(createAltTransactionInput, readBody(ctx, shape));
    const transaction = await core.sepa.create.mutate(input, asMerchant(ctx.state));
    respond(ctx, 200, withPublicLinks(ctx, transaction), shape);
  });

  router.get('/alt-transactions/:transactionId', async (ctx) => {
    const input = validate(altTransactionIdInput, ctx.params);
    respond(ctx, 200, withPublicLinks(ctx, await core.sepa.get.query(input, asMerchant(ctx.state))), shape);
  });

  // The original's Tools API: lower-case query parameters; without transactionid, the template (ours:
  // subscriptionid, a SEPA subscription's next debit).
  router.get('/translations/sepa/prenotification', async (ctx) => {
    const { transactionid, subscriptionid, language } = ctx.query;
    const input = validate(preNotificationInput, {
      ...(transactionid === undefined ? {} : { transactionId: transactionid }),
      ...(subscriptionid === undefined ? {} : { subscriptionId: subscriptionid }),
      ...(language === undefined ? {} : { language }),
    });
    const { subscriptionId, ...rest } = input;
    const translations =
      subscriptionId === undefined
        ? await core.sepa.preNotification.query(rest, asMerchant(ctx.state))
        : await core.recurring.preNotification.query({ subscriptionId, ...rest }, asMerchant(ctx.state));
    respond(ctx, 200, translations, xmlShapes.preNotification);
  });

  // The mandate text the merchant must show before submitting a debit (see docs/conformance.md, SEPA direct debit).
  router.get('/translations/sepa/mandate', async (ctx) => {
    const { language } = ctx.query;
    const input = validate(mandateTextInput, language === undefined ? {} : { language });
    const translations = await core.sepa.mandateText.query(input, asMerchant(ctx.state));
    respond(ctx, 200, translations, xmlShapes.mandateText);
  });
}
