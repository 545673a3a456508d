import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import { DomainError } from '@paywire/contracts';
import type { Context } from 'koa';
import { declaredRoutes, route } from '../http/route.ts';
import { openApiDocument } from '../openapi/document.ts';
import { file, scriptsAndStyles } from '../openapi/operation.ts';
import { pagePolicy, securityHeaders } from './hosted-fields.ts';

/**
 * The published API description: the OpenAPI document and a reference page rendering it with Swagger UI,
 * whose files come from node_modules through this route (no third-party origin). Public, like the hosted
 * fields, and under their Content-Security-Policy; Swagger UI's style sheet draws its icons as data: images.
 */

const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const pageDirectory = join(import.meta.dirname, '..', 'openapi');

const assetFiles: Record<string, { path: string; type: string }> = {
  'swagger-ui-bundle.js': {
    path: join(swaggerUi, 'swagger-ui-bundle.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'swagger-ui.css': { path: join(swaggerUi, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'favicon-32x32.png': { path: join(swaggerUi, 'favicon-32x32.png'), type: 'image/png' },
  'docs.js': { path: join(pageDirectory, 'docs.js'), type: 'text/javascript; charset=utf-8' },
};

interface Asset {
  body: string | Buffer;
  type: string;
  etag: string;
}

const asset = (body: string | Buffer, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
});

/** Sends a file read once, revalidated by its ETag (the bundle is 1.7 MB). */
function send(ctx: Context, { body, type, etag }: Asset): void {
  securityHeaders(ctx);
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('ETag', etag);
  ctx.type = type;
  if (ctx.get('if-none-match') === etag) {
    ctx.status = 304;
    return;
  }
  ctx.body = body;
}

const tag = 'API description';

/**
 * Mounted last: the document describes the routes declared on `routers` (this one's included), generated
 * here, at start, so a declaration the generator refuses stops the facade.
 */
export function apiDescriptionRoutes(router: Router, xmlNamespace: string, routers: readonly Router[]): void {
  const assets = new Map(
    Object.entries(assetFiles).map(([name, file]) => [name, asset(readFileSync(file.path), file.type)]),
  );
  const page = asset(readFileSync(join(pageDirectory, 'docs.html'), 'utf8'), 'text/html; charset=utf-8');
  route(
    router,
    {
      method: 'GET',
      path: '/openapi.json',
      tag,
      public: true,
      summary: 'This OpenAPI 3.1 document',
      answers: [file('application/json', 'The document')],
    },
    (ctx) => {
      ctx.set('Access-Control-Allow-Origin', '*'); // merchants' tooling may read it from anywhere
      send(ctx, document);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/docs',
      tag,
      public: true,
      summary: 'The reference page rendering this document',
      answers: [file('text/html', 'The page')],
    },
    (ctx) => {
      send(ctx, page);
      ctx.set('Content-Security-Policy', `${pagePolicy(undefined)}; img-src 'self' data:`);
    },
  );

  route(
    router,
    {
      method: 'GET',
      path: '/docs/:file',
      tag,
      public: true,
      summary: "The reference page's scripts and style sheets",
      answers: [file(scriptsAndStyles, 'The script or style sheet')],
    },
    (ctx) => {
      const file = assets.get(ctx.params.file ?? '');
      if (!file) throw new DomainError('RESOURCE_NOT_FOUND', `no resource at ${ctx.method} ${ctx.path}`);
      send(ctx, file);
    },
  );

  const routes = routers.flatMap((declaredOn) => declaredRoutes(declaredOn));
  const document = asset(
    JSON.stringify(openApiDocument(xmlNamespace, routes)),
    'application/json; charset=utf-8',
  );
}
