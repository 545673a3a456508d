import type Router from '@koa/router';
import {
  chargebackBody,
  chargebackIdInput,
  chargebackListBody,
  chargebackListQuery,
  createSandboxChargebackInput,
  DomainError,
  maxEvidenceBytes,
  moveSandboxChargebackInput,
  uploadEvidenceInput,
  validate,
} from '@paywire/contracts';
import type { Context } from 'koa';
import { z } from 'zod';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { body, ok } from '../openapi/operation.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.chargeback;
const chargeback = body('Chargeback', chargebackBody, shape);

/** The form field the original reads the representment from. */
const fileField = 'representment_file';

/** Room for the multipart framing around the largest file core takes. */
const uploadLimit = maxEvidenceBytes + 64 * 1024;

/** The request body, refused with 413 as soon as it outgrows the limit (nothing of it is kept). */
async function rawBody(ctx: Context, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      throw new DomainError(
        'REQUEST_ENTITY_TOO_LARGE',
        `${fileField}: must be at most ${maxEvidenceBytes} bytes`,
        {
          name: fileField,
        },
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The one file of a multipart/form-data upload, read by the platform's own form parser (undici's, as
 * `Response.formData()` gives it). Its declared name and type are ignored: core reads the content.
 */
async function uploadedFile(ctx: Context): Promise<Buffer> {
  if (!ctx.is('multipart/form-data')) {
    throw new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type must be multipart/form-data with ${fileField}`,
    );
  }
  const body = await rawBody(ctx, uploadLimit);
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': ctx.get('content-type') } }).formData();
  } catch {
    throw new DomainError('VALIDATION_GENERAL_FAILURE', 'body: must be a multipart/form-data document', {
      name: 'body',
    });
  }
  const file = form.get(fileField);
  if (!(file instanceof Blob)) {
    throw new DomainError('VALIDATION_GENERAL_FAILURE', `${fileField}: is required (one file)`, {
      name: fileField,
    });
  }
  return Buffer.from(await file.arrayBuffer());
}

/**
 * Chargebacks: the original's representment upload, our retrieval, and our sandbox disputes (404 in live
 * mode) so merchants can rehearse (docs/chargebacks.md).
 */
export function chargebackRoutes(router: Router<MerchantState>, core: CoreClient): void {
  // The original's endpoint: chargeback_id (and mid, for a linked account, which Paywire has none of) in the query.
  route(
    router,
    {
      method: 'POST',
      path: '/chargeback/upload_representment',
      tag: 'Chargebacks',
      summary: "Upload one evidence file for a chargeback (the original's representment upload)",
      description:
        'multipart/form-data with the file in the part named `representment_file`: PDF, TIFF, PNG or JPEG, ' +
        'told by its content; at most 9 MB (0.2 MB in sandbox mode). Kept in the database, never served back. ' +
        'Moves the chargeback to MERCHANT_RESPONDED.',
      query: z.object({
        chargeback_id: chargebackIdInput.shape.chargebackId,
        mid: chargebackIdInput.shape.chargebackId,
      }),
      answers: [ok('The chargeback, with its evidence listed', chargeback)],
      errors: [413, 415],
    },
    async (ctx) => {
      if (ctx.query.mid !== undefined && ctx.query.mid !== String(ctx.state.merchantId)) {
        throw new DomainError('CHARGEBACK_NOT_FOUND', 'no chargeback of that account was found', {
          name: 'mid',
        });
      }
      const { chargebackId } = validate(chargebackIdInput, { chargebackId: ctx.query.chargeback_id });
      const content = await uploadedFile(ctx);
      const input = validate(uploadEvidenceInput, { chargebackId, content: content.toString('base64') });
      respond(ctx, 200, await core.chargebacks.uploadEvidence.mutate(input, asMerchant(ctx.state)), shape);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/chargebacks',
      tag: 'Chargebacks',
      summary: "The merchant's chargebacks (ours), oldest first, optionally of one transaction",
      query: chargebackListQuery,
      answers: [ok('The chargebacks', body('ChargebackList', chargebackListBody, xmlShapes.chargebacks))],
    },
    async (ctx, { query }) => {
      const input = validate(query, ctx.query);
      respond(
        ctx,
        200,
        await core.chargebacks.list.query(input, asMerchant(ctx.state)),
        xmlShapes.chargebacks,
      );
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/chargebacks/:chargebackId',
      tag: 'Chargebacks',
      summary: 'Retrieve a chargeback (ours)',
      params: chargebackIdInput,
      answers: [ok('The chargeback', chargeback)],
    },
    async (ctx, { params }) => {
      const input = validate(params, ctx.params);
      respond(ctx, 200, await core.chargebacks.get.query(input, asMerchant(ctx.state)), shape);
    },
  );

  route(
    router,
    {
      method: 'POST',
      path: '/sandbox/chargebacks',
      tag: 'Sandbox',
      summary:
        "Open a rehearsal chargeback on one of the merchant's captured card sales (ours; 404 in live mode)",
      description: 'Sends the Chargeback IPN; the sale itself never changes (docs/chargebacks.md).',
      request: body('CreateSandboxChargeback', createSandboxChargebackInput, shape),
      answers: [ok('The chargeback', chargeback)],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, readBody(ctx, request.shape));
      respond(ctx, 200, await core.chargebacks.sandboxCreate.mutate(input, asMerchant(ctx.state)), shape);
    },
  );

  route(
    router,
    {
      method: 'PUT',
      path: '/sandbox/chargebacks/:chargebackId',
      tag: 'Sandbox',
      summary:
        'Play the issuer: ask for more (PENDING_MERCHANT_RESPONSE) or decide (COMPLETED_WON, COMPLETED_LOST)',
      description: 'Moves allowed by the lifecycle only; sends the ChargebackStatusChanged IPN.',
      params: chargebackIdInput,
      request: body('MoveSandboxChargeback', moveSandboxChargebackInput, shape),
      answers: [ok('The chargeback', chargeback)],
    },
    async (ctx, { request }) => {
      const input = validate(request.schema, {
        ...readBody(ctx, request.shape),
        chargebackId: ctx.params.chargebackId,
      });
      respond(ctx, 200, await core.chargebacks.sandboxMove.mutate(input, asMerchant(ctx.state)), shape);
    },
  );
}
