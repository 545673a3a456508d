import { currencyExponent, DomainError, isCurrency } from '@paywire/contracts';
import { fromXml, toXml, type XmlShape } from '@paywire/xml';
import type { Context } from 'koa';
import { type Format, requestFormat, responseFormat } from './format.ts';
import { publicUrl } from './links.ts';

const moneyKeys = new Set([
  'amount',
  'taxAmount',
  'recurringChargeAmount',
  'initialChargeAmount',
  'overrideRecurringChargeAmount',
  'overrideInitialChargeAmount',
  'value', // the switch charge amount's price
  'minAmount', // fraud settings' amount limits
  'maxAmount',
]);

/** XML amounts carry the currency's decimals ("10.50", "1000" for JPY); JSON numbers cannot. */
function formatNumber(key: string, value: number, parent: Record<string, unknown>): string {
  const currency = parent.currency;
  if (moneyKeys.has(key) && typeof currency === 'string' && isCurrency(currency)) {
    return value.toFixed(currencyExponent(currency));
  }
  return String(value);
}

declare module 'koa' {
  interface DefaultContext {
    /** The XML namespace of responses, from the facade's configuration. */
    xmlNamespace: string;
  }
}

export function respond(ctx: Context, status: number, body: object, shape: XmlShape): void {
  const { type, text } = render(responseFormat(ctx), body, shape, ctx.xmlNamespace);
  ctx.status = status;
  ctx.type = type;
  ctx.body = text;
}

/** A body as JSON text or as the shape's XML document; also used where the request never reached Koa. */
export function render(
  format: Format,
  body: object,
  shape: XmlShape,
  namespace: string,
): { type: string; text: string } {
  if (format === 'xml') {
    return {
      type: 'application/xml',
      text: toXml(body as Record<string, unknown>, shape, { formatNumber, namespace }),
    };
  }
  return { type: 'application/json', text: JSON.stringify(body) };
}

/** The request body in the resource's JSON shape, whichever format it came in. */
export function readBody(ctx: Context, shape: XmlShape): Record<string, unknown> {
  const format = requestFormat(ctx);
  const body: unknown = ctx.request.body;
  if (format === 'xml') return fromXml(String(body), shape);
  if (format === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError('VALIDATION_GENERAL_FAILURE', 'body: must be a JSON object', { name: 'body' });
  }
  return body as Record<string, unknown>;
}

/** The original's create answer: 201, no body, the new resource's public URL in Location. */
export function respondCreated(ctx: Context, path: string): void {
  ctx.status = 201;
  ctx.set('Location', publicUrl(ctx, path));
  ctx.body = '';
}
