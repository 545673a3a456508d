import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { createPaywireClient } from '@paywire/client';
import type { ErrorBody } from '@paywire/contracts';
import { createFacade } from '@paywire/facade';
import { createLogger } from '@paywire/observability';
import { toXml } from '@paywire/xml';
import { Validator } from '@seriousme/openapi-schema-validator';
import type Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredRoutes } from '../../apps/facade/src/http/route.ts';
import { openApiDocument } from '../../apps/facade/src/openapi/document.ts';
import type { Body } from '../../apps/facade/src/openapi/operation.ts';
import { xmlShapes } from '../../apps/facade/src/xml-shapes.ts';

// The published API description (GET /services/2/openapi.json) against the facade itself: the routes its
// routers register (each through http/route.ts, which records its declaration), the OpenAPI 3.1 schema, and
// the element names of its XML answers. Core is never called
// (the description and the public pages need none of it), so the facade gets a core address nobody serves.

const basePath = '/services/2';
const methods = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

type Json = { [key: string]: unknown };
// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
type OpenApi = any;

let facade: Koa;
let server: ReturnType<Koa['listen']>;
let origin: string;
let document: OpenApi;

beforeAll(async () => {
  facade = createFacade({
    core: createPaywireClient({ url: 'http://127.0.0.1:9/trpc', credential: `pwc_1_${'x'.repeat(43)}` }),
    log: createLogger('facade', () => {}),
    xmlNamespace: 'http://ws.plimus.com',
    authCacheSeconds: 60,
    logRequests: false,
  });
  server = facade.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const reply = await fetch(`${origin}${basePath}/openapi.json`);
  expect(reply.status).toBe(200);
  document = await reply.json();
});

afterAll(() => new Promise((resolve) => server?.close(resolve)));

const routers = (app: Koa) =>
  app.middleware.flatMap((middleware) => (middleware as { router?: Router }).router ?? []);

/** `METHOD /services/2/path/:param` of every route the app's routers hold (HEAD comes with each GET). */
function servedRoutes(app: Koa): string[] {
  const layers = routers(app).flatMap((router) => router.stack);
  const routes = layers.flatMap((layer) =>
    layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${layer.path}`),
  );
  return [...new Set(routes)].sort();
}

function documentedRoutes(description: OpenApi): string[] {
  return Object.entries(description.paths as Record<string, Json>)
    .flatMap(([path, item]) =>
      methods
        .filter((method) => method in item)
        .map((method) => `${method.toUpperCase()} ${basePath}${path.replace(/\{(\w+)\}/g, ':$1')}`),
    )
    .sort();
}

/** Every XML element name a schema gives, at any depth. */
function xmlNames(schema: unknown, names = new Set<string>()): Set<string> {
  if (typeof schema !== 'object' || schema === null) return names;
  const name = ((schema as Json).xml as Json | undefined)?.name;
  if (typeof name === 'string') names.add(name);
  for (const value of Object.values(schema)) xmlNames(value, names);
  return names;
}

describe('the document and the routes', () => {
  it('documents every route the facade serves, and nothing it does not serve', () => {
    // A route mounted with router.get/put/post/delete instead of route() has no declaration: undocumented.
    const served = servedRoutes(facade).filter((route) => route.includes(` ${basePath}/`));
    const documented = documentedRoutes(document);
    expect(served.length).toBeGreaterThan(25);
    expect({
      undocumented: served.filter((route) => !documented.includes(route)),
      unserved: documented.filter((route) => !served.includes(route)),
    }).toEqual({ undocumented: [], unserved: [] });
  });

  it('has one declaration per route mounted under /services/2, and no declaration of a route not mounted', () => {
    const declared = routers(facade).flatMap((router) =>
      declaredRoutes(router).map(({ method, path }) => `${method} ${basePath}${path}`),
    );
    const served = servedRoutes(facade).filter((route) => route.includes(` ${basePath}/`));
    expect(declared.sort()).toEqual(served);
  });

  it('refuses a route declared twice', () => {
    const declaration = routers(facade).flatMap((router) => declaredRoutes(router))[0];
    expect(declaration).toBeDefined();
    if (declaration) {
      expect(() => openApiDocument('', [declaration, declaration])).toThrow(/declared twice/);
    }
  });

  it("leaves out the processors' notification routes, which Adyen calls, not merchants", () => {
    const processorRoutes = servedRoutes(facade).filter((route) => !route.includes(` ${basePath}/`));
    expect(processorRoutes).toEqual(['POST /processors/adyen/:accountId/notifications']);
    expect(JSON.stringify(document)).not.toContain('/processors/');
  });

  it('sees a route mounted without a declaration (the comparison reads the routers, not the declarations)', () => {
    const extra = new Router({ prefix: basePath });
    extra.get('/undocumented/:id', (ctx) => {
      ctx.body = '';
    });
    const app = createFacade({
      core: createPaywireClient({ url: 'http://127.0.0.1:9/trpc', credential: `pwc_1_${'x'.repeat(43)}` }),
      log: createLogger('facade', () => {}),
      xmlNamespace: '',
      authCacheSeconds: 60,
      logRequests: false,
    });
    app.use(extra.routes());
    const served = servedRoutes(app).filter((route) => route.includes(` ${basePath}/`));
    expect(served.filter((route) => !documentedRoutes(document).includes(route))).toEqual([
      `GET ${basePath}/undocumented/:id`,
    ]);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(document.openapi).toMatch(/^3\.1\./);
  });
});

/** A value the schema admits, every property present and every array of one item (never: left out). */
function sampleOf(schema: Json): unknown {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (branches?.[0]) return sampleOf(branches[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object') {
    const properties = Object.entries((schema.properties ?? {}) as Record<string, Json>);
    return Object.fromEntries(
      properties
        .map(([key, property]) => [key, sampleOf(property)])
        .filter(([, value]) => value !== undefined),
    );
  }
  if (type === 'array') {
    const item = sampleOf(schema.items as Json);
    return item === undefined ? [] : [item];
  }
  if (type === 'string') return 'x';
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  return undefined;
}

const xmlName = (schema: Json) => (schema.xml as { name?: string } | undefined)?.name;

/** The elements, in document order, that the schema's xml keywords say `value` is written as. */
function elementsFromSchema(
  schema: Json,
  value: unknown,
  omitted: readonly string[] = [],
  name = xmlName(schema),
): string[] {
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  const own = branches?.[0] ?? schema;
  const children =
    typeof value === 'object' && value !== null
      ? Object.entries(value).flatMap(([key, child]) => {
          if (omitted.includes(key)) return []; // JSON only (XmlShape.omitted)
          const property = (own.properties as Record<string, Json>)[key] as Json;
          if (!Array.isArray(child)) return elementsFromSchema(property, child, omitted);
          const items = property.items as Json;
          const elements = child.flatMap((item) => elementsFromSchema(items, item, omitted));
          const wrapper = (property.xml as { wrapped?: boolean } | undefined)?.wrapped;
          return wrapper ? [xmlName(property) ?? key, ...elements] : elements;
        })
      : [];
  return [name ?? '?', ...children];
}

/** Every body the routes declare, and the error body: component name and XML shape. */
function allBodies(): Pick<Body, 'name' | 'shape'>[] {
  const declarations = routers(facade).flatMap((router) => declaredRoutes(router));
  const bodies = declarations.flatMap((operation) => [
    ...(operation.request ? [operation.request] : []),
    ...operation.answers.flatMap((answer) => (answer.body ? [answer.body] : [])),
  ]);
  return [...bodies, { name: 'Error', shape: xmlShapes.messages }];
}

describe('what the document says', () => {
  it('asks for Basic credentials except on the public routes, and Idempotency-Key on merchant POSTs', () => {
    expect(document.components.securitySchemes.basic).toEqual(expect.objectContaining({ scheme: 'basic' }));
    expect(document.security).toEqual([{ basic: [] }]);
    const tokenPut = document.paths['/payment-fields-tokens/{token}'].put;
    expect(tokenPut.security).toEqual([]);
    expect(document.paths['/openapi.json'].get.security).toEqual([]);
    expect(document.paths['/transactions'].post.security).toBeUndefined();
    const headerRefs = (operation: OpenApi) =>
      operation.parameters.map((parameter: Json) => parameter.$ref).filter(Boolean);
    expect(headerRefs(document.paths['/transactions'].post)).toEqual([
      '#/components/parameters/BluesnapVersion',
      '#/components/parameters/IdempotencyKey',
    ]);
    expect(headerRefs(document.paths['/transactions'].put)).toEqual([
      '#/components/parameters/BluesnapVersion',
    ]);
    expect(headerRefs(tokenPut)).toEqual(['#/components/parameters/BluesnapVersion']);
    expect(document.components.parameters.BluesnapVersion.name).toBe('bluesnap-version');
    expect(document.components.parameters.IdempotencyKey.name).toBe('Idempotency-Key');
  });

  it('gives JSON and XML bodies from the contracts, path parameters taken out of the body', () => {
    const sale = document.paths['/transactions'].post;
    expect(Object.keys(sale.requestBody.content)).toEqual(['application/json', 'application/xml']);
    const request = document.components.schemas.CreateCardTransaction;
    expect(request.properties.cardTransactionType.enum).toEqual(['AUTH_CAPTURE', 'AUTH_ONLY']);
    expect(request.required).toEqual(expect.arrayContaining(['cardTransactionType', 'amount', 'currency']));
    expect(document.components.schemas.BindPaymentFieldsToken.properties.token).toBeUndefined();
    expect(document.components.schemas.BindPaymentFieldsToken.required).not.toContain('token');
    expect(document.components.schemas.RefundRequest.properties.transactionId).toBeUndefined();
    expect(sale.responses['200'].content['application/xml'].schema.$ref).toBe(
      '#/components/schemas/CardTransaction',
    );
    expect(sale.responses['401'].$ref).toBe('#/components/responses/Error401');
    expect(document.paths['/payment-fields-tokens'].post.responses['201'].headers.Location).toBeDefined();
    expect(document.paths['/notification-config'].delete.responses['204']).toBeDefined();
  });

  it('names XML elements as packages/xml writes them: root, kebab-case, repeated and wrapped arrays', () => {
    const { schemas } = document.components;
    expect(schemas.CardTransaction.xml).toEqual({
      name: 'card-transaction',
      namespace: 'http://ws.plimus.com',
    });
    expect(schemas.CardTransaction.properties.cardHolderInfo.xml).toEqual({ name: 'card-holder-info' });
    const destinations = schemas.NotificationConfig.properties.ipnDestinations;
    expect(destinations.xml).toEqual({ name: 'ipn-destinations', wrapped: true });
    expect(destinations.items.xml).toEqual({ name: 'ipn-destination' });
    expect(destinations.items.properties.ipnUrl.xml).toEqual({ name: 'ipn-url' });
    const cards = schemas.VaultedShopper.properties.paymentSources.properties.creditCardInfo;
    expect(cards.xml).toBeUndefined(); // repeated <credit-card-info> elements, no wrapper
    expect(cards.items.xml).toEqual({ name: 'credit-card-info' });
  });

  it('names every element of every body as packages/xml writes it', () => {
    const bodies = allBodies();
    expect(bodies.length).toBeGreaterThan(30);
    for (const { name, shape } of bodies) {
      const schema = document.components.schemas[name] as Json;
      const sample = sampleOf(schema) as Record<string, unknown>;
      const written = toXml(sample, shape, { namespace: '' });
      const elements = [...written.matchAll(/<([a-z][\w-]*)[\s>/]/g)].map((match) => match[1]);
      expect(elements.length, name).toBeGreaterThan(1);
      expect(elementsFromSchema(schema, sample, shape.omitted), name).toEqual(elements);
    }
  });

  it("describes the error body with the element names of the facade's real XML error", async () => {
    const reply = await fetch(`${origin}${basePath}/transactions/1`, {
      headers: { accept: 'application/xml' },
    });
    expect(reply.status).toBe(401);
    const xml = await reply.text();
    const elements = [...xml.matchAll(/<([a-z][\w-]*)[\s>/]/g)].map((match) => match[1]);
    expect(elements).toEqual(
      expect.arrayContaining(['messages', 'message', 'error-name', 'code', 'description']),
    );
    const error = document.components.schemas.Error;
    expect(error.xml.name).toBe(elements[0]);
    const named = xmlNames(error);
    expect(elements.filter((element) => element && !named.has(element))).toEqual([]);
    const json = (await (await fetch(`${origin}${basePath}/transactions/1`)).json()) as ErrorBody;
    expect(
      Object.keys(json.message[0] ?? {}).every((key) => key in error.properties.message.items.properties),
    ).toBe(true);
  });
});

describe('serving it', () => {
  it('serves the document without credentials, and the reference page under a strict policy', async () => {
    const reply = await fetch(`${origin}${basePath}/openapi.json`);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.headers.get('access-control-allow-origin')).toBe('*');

    const page = await fetch(`${origin}${basePath}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("style-src 'self';");
    expect(policy).toContain("require-trusted-types-for 'script'");
    expect(policy).not.toContain('unsafe');
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/); // no inline script
    expect(html).not.toMatch(/<style|\sstyle=/);
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(sources.length).toBe(4);
    for (const source of sources) {
      expect(source).toMatch(/^\/services\/2\/docs\//);
      const asset = await fetch(`${origin}${source}`);
      expect(asset.status, source).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(
        /^(text\/(javascript|css); charset=utf-8|image\/png)$/,
      );
      const etag = asset.headers.get('etag') ?? '';
      await asset.arrayBuffer();
      const again = await fetch(`${origin}${source}`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
    }
  });

  it('answers 404 in the error shape for a file the page does not have', async () => {
    const reply = await fetch(`${origin}${basePath}/docs/package.json`);
    expect(reply.status).toBe(404);
    expect(((await reply.json()) as ErrorBody).message[0]?.errorName).toBe('RESOURCE_NOT_FOUND');
  });
});
