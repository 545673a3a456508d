import type Router from '@koa/router';
import {
  chargebackIdInput,
  chargebackListQuery,
  createSandboxChargebackInput,
  DomainError,
  maxEvidenceBytes,
  moveSandboxChargebackInput,
  uploadEvidenceInput,
  validate,
} from '@paywire/contracts';
import type { Context } from 'koa';
import { asMerchant, type CoreClient } from '../core-client.ts';
import { readBody, respond } from '../http/respond.ts';
import { xmlShapes } from '../xml-shapes.ts';
import type { MerchantState } from './state.ts';

const shape = xmlShapes.chargeback;

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
  router.post('/chargeback/upload_representment', async (ctx) => {
    if (ctx.query.mid !== undefined && ctx.query.mid !== String(ctx.state.merchantId)) {
      throw new DomainError('CHARGEBACK_NOT_FOUND', 'no chargeback of that account was found', {
        name: 'mid',
      });
    }
    const { chargebackId } = validate(chargebackIdInput, { chargebackId: ctx.query.chargeback_id });
    const content = await uploadedFile(ctx);
    const input = validate(uploadEvidenceInput, { chargebackId, content: content.toString('base64') });
    respond(ctx, 200, await core.chargebacks.uploadEvidence.mutate(input, asMerchant(ctx.state)), shape);
  });

  router.get('/chargebacks', async (ctx) => {
    const query = validate(chargebackListQuery, ctx.query);
    respond(ctx, 200, await core.chargebacks.list.query(query, asMerchant(ctx.state)), xmlShapes.chargebacks);
  });

  router.get('/chargebacks/:chargebackId', async (ctx) => {
    const input = validate(chargebackIdInput, ctx.params);
    respond(ctx, 200, await core.chargebacks.get.query(input, asMerchant(ctx.state)), shape);
  });

  router.post('/sandbox/chargebacks', async (ctx) => {
    const input = validate(createSandboxChargebackInput, readBody(ctx, shape));
    respond(ctx, 200, await core.chargebacks.sandboxCreate.mutate(input, asMerchant(ctx.state)), shape);
  });

  router.put('/sandbox/chargebacks/:chargebackId', async (ctx) => {
    const input = validate(moveSandboxChargebackInput, {
      ...readBody(ctx, shape),
      chargebackId: ctx.params.chargebackId,
    });
    respond(ctx, 200, await core.chargebacks.sandboxMove.mutate(input, asMerchant(ctx.state)), shape);
  });
}
