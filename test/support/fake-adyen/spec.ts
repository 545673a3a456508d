import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Adyen's published documents, compiled once per process into Ajv 2020 validators. The documents are
 * OpenAPI 3.1 (JSON Schema 2020-12) with a few 3.0 leftovers, so each schema is first translated:
 * `nullable: true` becomes a type union with null, and annotations JSON Schema does not know
 * (`x-*`, `example`, `discriminator`) are dropped so Ajv's strict mode can refuse everything else.
 */

const documents = new URL('../processor-specs/adyen/', import.meta.url);

/** The fake's operations and the document's path for each. */
export const operations = {
  payments: '/payments',
  captures: '/payments/{paymentPspReference}/captures',
  cancels: '/payments/{paymentPspReference}/cancels',
  refunds: '/payments/{paymentPspReference}/refunds',
  reversals: '/payments/{paymentPspReference}/reversals',
  'technical-cancel': '/cancels',
} as const;
export type Operation = keyof typeof operations;

export interface Violation {
  /** What failed, for `FakeAdyen.violations`: the operation, the part, and Ajv's messages. */
  text: string;
  /** The first failing property in Adyen's words ("Required field 'amount' is not provided."). */
  message: string;
}

export interface Spec {
  request(operation: Operation, body: unknown): Violation | undefined;
  response(operation: Operation, status: number, body: unknown): Violation | undefined;
  /** A body against one of the Checkout document's schemas by name ("ThreeDSecureData"). */
  schema(name: string, body: unknown): Violation | undefined;
  /** A standard notification, checked against the webhook its first item's event code names. */
  notification(body: {
    notificationItems: Array<{ NotificationRequestItem: { eventCode: string } }>;
  }): Violation | undefined;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

/** Turns one OpenAPI schema into plain JSON Schema 2020-12, `$ref`s pointing into `$defs`. */
function translate(node: Json): Json {
  if (Array.isArray(node)) return node.map(translate);
  if (node === null || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-') || key === 'example' || key === 'discriminator' || key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string')
      out.$ref = value.replace('#/components/schemas/', '#/$defs/');
    // `properties` maps names to schemas: its keys are property names, never keywords to drop.
    else if ((key === 'properties' || key === 'patternProperties') && value && typeof value === 'object')
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, translate(s)]));
    else out[key] = translate(value);
  }
  if (node.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}

function load(file: string, id: string, ajv: Ajv2020): Schema {
  const document = JSON.parse(readFileSync(new URL(file, documents), 'utf8'));
  const schemas: Record<string, Json> = document.components.schemas;
  ajv.addSchema({
    $id: id,
    $defs: Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, translate(s)])),
  });
  return document;
}

function schemaName(media: Json | undefined): string {
  const ref = (media as { content?: { 'application/json'?: { schema?: { $ref?: string } } } } | undefined)
    ?.content?.['application/json']?.schema?.$ref;
  if (!ref) throw new Error('the Adyen document names no JSON schema here');
  return ref.replace('#/components/schemas/', '');
}

function build(): Spec {
  // strictTypes off: Adyen's schemas put `properties` beside `oneOf` without restating `type`.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
  addFormats.default(ajv);
  const checkout = load('CheckoutService-v72.json', 'urn:adyen:checkout', ajv);
  const webhooks = load('Webhooks-v1.json', 'urn:adyen:webhooks', ajv);
  const compiled = new Map<string, ValidateFunction>();
  const validator = (id: string, name: string): ValidateFunction => {
    const ref = `${id}#/$defs/${name}`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    return validate;
  };
  const check = (what: string, schema: string, id: string, body: unknown): Violation | undefined => {
    const validate = validator(id, schema);
    if (validate(body)) return undefined;
    const errors = validate.errors ?? [];
    const first = errors[0];
    const field =
      first?.params && 'missingProperty' in first.params ? first.params.missingProperty : undefined;
    return {
      text: `${what} (${schema}): ${ajv.errorsText(errors)}`,
      message: field
        ? `Required field '${field}' is not provided.`
        : `Structure of ${schema} is invalid: ${first?.instancePath || '/'} ${first?.message ?? ''}`.trim(),
    };
  };
  // biome-ignore lint/suspicious/noExplicitAny: the documents are read as untyped JSON
  const post = (path: string): any => (checkout.paths as any)[path].post;
  return {
    schema: (name, body) => check(name, name, 'urn:adyen:checkout', body),
    request: (operation, body) =>
      check(
        `${operation} request`,
        schemaName(post(operations[operation]).requestBody),
        'urn:adyen:checkout',
        body,
      ),
    response: (operation, status, body) => {
      const answer = post(operations[operation]).responses[String(status)];
      if (!answer) return { text: `${operation} answer: status ${status} is not documented`, message: '' };
      return check(`${operation} answer ${status}`, schemaName(answer), 'urn:adyen:checkout', body);
    },
    notification: (body) => {
      const eventCode = body.notificationItems[0]?.NotificationRequestItem.eventCode ?? '';
      // biome-ignore lint/suspicious/noExplicitAny: the documents are read as untyped JSON
      const hook = (webhooks.webhooks as any)[`/${eventCode}`]?.post.requestBody;
      return check(
        `${eventCode} notification`,
        hook ? schemaName(hook) : 'NotificationRequest',
        'urn:adyen:webhooks',
        body,
      );
    },
  };
}

let cached: Spec | undefined;

/** The validators, built on first use: compiling Adyen's schemas takes a moment, once per process. */
export function adyenSpec(): Spec {
  cached ??= build();
  return cached;
}
