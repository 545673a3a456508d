import type Router from '@koa/router';
import {
  type AltTransaction,
  altTransactionBody,
  altTransactionIdInput,
  createAltTransactionInput,
  mandateTextInput,
  preNotificationInput,
  sepaTranslationsBody,
  validate,
} from '@paywire/contracts';
import type { Context } from 'koa';
import { z } from 'zod';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { publicUrl } from '../http/links.ts';
import { readBody, respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.altTransaction;
const tag = 'SEPA direct debit';
const debit = ok('The debit', body('AltTransaction', altTransactionBody, shape));

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
  route(
    router,
    {
      method: 'POST',
      path: '/alt-transactions',
      tag,
      summary: 'Create a SEPA direct debit',
      request: body('CreateAltTransaction', createAltTransactionInput, shape),
      answers: [debit],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      const transaction = await core.sepa.create.mutate(input, asMerchant(ctx.state));
      respond(ctx, 200, withPublicLinks(ctx, transaction), shape);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/alt-transactions/:transactionId',
      tag,
      summary: 'Retrieve a SEPA direct debit',
      params: altTransactionIdInput,
      answers: [debit],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(ctx, 200, withPublicLinks(ctx, await core.sepa.get.query(input, asMerchant(ctx.state))), shape);
    },
  );

  // The original's Tools API: lower-case query parameters; without transactionid, the template (ours:
  // subscriptionid, a SEPA subscription's next debit).
  route(
    router,
    {
      method: 'GET',
      path: '/translations/sepa/prenotification',
      tag,
      summary:
        "A debit's pre-notification text, a SEPA subscription's next debit's (subscriptionid), or without either the template, in every language or one",
      query: z.object({
        transactionid: preNotificationInput.shape.transactionId,
        subscriptionid: preNotificationInput.shape.subscriptionId,
        language: preNotificationInput.shape.language,
      }),
      answers: [
        ok('The texts', body('PreNotificationTexts', sepaTranslationsBody, xmlShapes.preNotification)),
      ],
    },
    async (ctx) => {
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
    },
  );

  // The mandate text the merchant must show before submitting a debit (see docs/conformance.md, SEPA direct debit).
  route(
    router,
    {
      method: 'GET',
      path: '/translations/sepa/mandate',
      tag,
      summary: 'The mandate text to show the shopper before submitting a debit, in every language or one',
      query: mandateTextInput,
      answers: [ok('The texts', body('MandateTexts', sepaTranslationsBody, xmlShapes.mandateText))],
    },
    async (ctx, { query }) => {
      const { language } = ctx.query;
      const input = validate(query, language === undefined ? {} : { language });
      const translations = await core.sepa.mandateText.query(input, asMerchant(ctx.state));
      respond(ctx, 200, translations, xmlShapes.mandateText);
    },
  );
}
