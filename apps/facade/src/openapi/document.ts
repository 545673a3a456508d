import { errorBodySchema, idempotencyKeyMaxLength } from '@paywire/contracts';
import { z } from 'zod';
import type { RouteDeclaration } from '../http/route.ts';
import { xmlShapes } from '../xml-shapes.ts';
import { type Answer, type Body, type Operation, tags } from './operation.ts';
import { addXmlNames, type JsonSchema } from './xml-names.ts';

/**
 * The OpenAPI 3.1 description of /services/2, generated from the routes' declarations (http/route.ts) and
 * the zod contracts: request schemas as clients may send them (zod's input side), response schemas as they are
 * answered, both with the XML element names of packages/xml.
 */

const basePath = '/services/2';
const resourceMedia = ['application/json', 'application/xml'];

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const converted = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' });
  // A deep copy without shared sub-objects: the XML names are written per place, not per schema object.
  const { $schema: _dialect, ...rest } = JSON.parse(JSON.stringify(converted)) as JsonSchema;
  return rest;
}

const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
const refTo = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const resourceContent = (schema: object) =>
  Object.fromEntries(resourceMedia.map((media) => [media, { schema }]));

/** Koa's `/orders/:orderId` -> OpenAPI's `/orders/{orderId}`, and the parameter names. */
function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const converted = path.replace(/:(\w+)/g, (_match, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: converted, params };
}

const errorDescriptions: Record<number, string> = {
  400: 'Invalid request (each problem named in `invalidProperty`), declined payment or unknown bluesnap-version',
  401: 'Missing or wrong Basic credentials',
  404: 'No such resource',
  405: 'The verb does not fit the request, e.g. CAPTURE sent with POST',
  409: 'A request with the same Idempotency-Key is still in progress',
  413: 'The body exceeds 1 MiB',
  415: 'The body is neither JSON nor XML',
  422: 'The Idempotency-Key was used with a different request',
  429: 'Too many failed logins for this username or client address; `Retry-After` says when to try again',
  500: 'Unexpected error (logged; no internals in the answer)',
  503: 'The service cannot reach its core right now; nothing was done. `Retry-After` says when to try again',
};

/** The error answers an operation of this kind can give, all with the one error body. */
function errorStatuses(method: string, operation: Operation, hasParams: boolean): number[] {
  const merchant = !operation.public;
  return [
    400,
    ...(merchant ? [401, 429] : []),
    ...(hasParams ? [404] : []),
    ...(merchant && method === 'POST' ? [409, 422] : []),
    ...(operation.request ? [413, 415] : []),
    ...(operation.errors ?? []),
    500,
    503,
  ].sort((a, b) => a - b);
}

function errorResponse(status: number) {
  const description = errorDescriptions[status];
  if (!description) throw new Error(`no description of error status ${status} in the API description`);
  return { description, content: resourceContent(refTo('Error')) };
}

interface Builder {
  namespace: string;
  schemas: Record<string, JsonSchema>;
  /** What each component name was made from: one name, one body without the same path parameters. */
  bodies: Map<string, { body: Body; omit: string }>;
}

/** Registers a body's schema once under its name (with its XML names) and returns a reference to it. */
function component(builder: Builder, { name, schema, shape }: Body, io: 'input' | 'output', omit: string[]) {
  const known = builder.bodies.get(name);
  if (known && (known.body.schema !== schema || known.body.shape !== shape || known.omit !== omit.join())) {
    throw new Error(`OpenAPI component ${name} names two different bodies: give each its own name`);
  }
  if (!known) {
    builder.bodies.set(name, { body: { name, schema, shape }, omit: omit.join() });
    const converted = jsonSchema(schema, io);
    const properties = converted.properties as Record<string, unknown> | undefined;
    for (const key of omit) if (properties) delete properties[key];
    if (Array.isArray(converted.required))
      converted.required = converted.required.filter((key) => !omit.includes(key));
    builder.schemas[name] = addXmlNames(converted, shape, builder.namespace);
  }
  return refTo(name);
}

function parameter(name: string, where: 'path' | 'query', schema: z.ZodType) {
  const converted = jsonSchema(schema, 'input');
  const { description, ...rest } = converted;
  return {
    name,
    in: where,
    required: where === 'path' || !schema.safeParse(undefined).success,
    ...(description ? { description } : {}),
    schema: rest,
  };
}

function answerContent(builder: Builder, answer: Answer) {
  if (answer.body) return resourceContent(component(builder, answer.body, 'output', []));
  if (answer.media)
    return Object.fromEntries(answer.media.map((media) => [media, { schema: { type: 'string' } }]));
  return undefined;
}

/** The operation's answers; an error status it also answers with a page of its own lists both. */
function responses(builder: Builder, method: string, operation: Operation, hasParams: boolean) {
  const all: Record<string, object> = {};
  for (const status of errorStatuses(method, operation, hasParams)) {
    all[status] = { $ref: `#/components/responses/Error${status}` };
  }
  for (const answer of operation.answers) {
    const error = all[answer.status] ? errorResponse(answer.status) : undefined;
    all[answer.status] = {
      description: error ? `${answer.description}; or: ${error.description}` : answer.description,
      ...(answer.body || answer.media || error
        ? { content: { ...error?.content, ...answerContent(builder, answer) } }
        : {}),
      ...(answer.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(answer.headers).map(([name, description]) => [
                name,
                { description, schema: { type: 'string' } },
              ]),
            ),
          }
        : {}),
    };
  }
  return all;
}

function operationObject(builder: Builder, operation: RouteDeclaration) {
  const { method, path: koaPath } = operation;
  const { params } = openApiPath(koaPath);
  const parameters: object[] = [
    ...params.map((name) => parameter(name, 'path', operation.params?.shape[name] ?? z.string())),
    ...Object.entries(operation.query?.shape ?? {})
      .filter(([name]) => !params.includes(name))
      .map(([name, schema]) => parameter(name, 'query', schema)),
    { $ref: '#/components/parameters/BluesnapVersion' },
  ];
  if (method === 'POST' && !operation.public)
    parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  return {
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    operationId: [
      method.toLowerCase(),
      ...koaPath
        .split(/[^A-Za-z0-9]+/)
        .filter(Boolean)
        .map(capitalised),
    ].join(''),
    ...(operation.public ? { security: [] } : {}),
    parameters,
    ...(operation.request
      ? {
          requestBody: {
            required: true,
            content: resourceContent(component(builder, operation.request, 'input', params)),
          },
        }
      : {}),
    responses: responses(builder, method, operation, params.length > 0),
  };
}

const description = `The /services/2 interface: every resource in JSON or XML (\`Content-Type\` for the body, \`Accept\` for
the answer; XML elements are the kebab-case of the JSON names). Merchant operations use HTTP Basic credentials;
the hosted payment fields and this description are public. Every error answers
\`{"message":[{errorName, code, description, invalidProperty?}]}\` (XML: \`<messages><message>\`). A POST with an
\`Idempotency-Key\` runs once: a retry with the same key and request gets the first answer.`;

/** The document of `routes` for a facade whose XML answers carry `xmlNamespace`. */
export function openApiDocument(xmlNamespace: string, routes: readonly RouteDeclaration[]): object {
  const builder: Builder = {
    namespace: xmlNamespace,
    bodies: new Map(),
    schemas: { Error: addXmlNames(jsonSchema(errorBodySchema, 'output'), xmlShapes.messages, xmlNamespace) },
  };
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    const { path } = openApiPath(route.path);
    const method = route.method.toLowerCase();
    paths[path] ??= {};
    if (paths[path][method]) throw new Error(`${route.method} ${route.path} is declared twice`);
    paths[path][method] = operationObject(builder, route);
  }
  return {
    openapi: '3.1.1',
    info: { title: 'Paywire', version: '2', description },
    servers: [{ url: basePath }],
    security: [{ basic: [] }],
    tags: tags.filter((tag) => routes.some((route) => route.tag === tag)).map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: "The merchant's API credentials" },
      },
      parameters: {
        BluesnapVersion: {
          name: 'bluesnap-version',
          in: 'header',
          required: false,
          description: 'The interface version the client was written for; any other value is 400',
          schema: { type: 'string', enum: ['1.0', '2.0', '3.0'] },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Runs the POST once: a retry with the same key and request answers as the first (24 hours)',
          schema: { type: 'string', maxLength: idempotencyKeyMaxLength, pattern: '^[A-Za-z0-9-]+$' },
        },
      },
      schemas: builder.schemas,
      responses: Object.fromEntries(
        Object.keys(errorDescriptions).map((status) => [`Error${status}`, errorResponse(Number(status))]),
      ),
    },
  };
}
