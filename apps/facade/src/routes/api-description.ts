import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import { DomainError } from '@paywire/contracts';
import type { Context } from 'koa';
import { openApiDocument } from '../openapi/document.ts';
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

/** The document is generated here, at start: a route table the generator refuses stops the facade. */
export function apiDescriptionRoutes(router: Router, xmlNamespace: string): void {
  const assets = new Map(
    Object.entries(assetFiles).map(([name, file]) => [name, asset(readFileSync(file.path), file.type)]),
  );
  const page = asset(readFileSync(join(pageDirectory, 'docs.html'), 'utf8'), 'text/html; charset=utf-8');
  const document = asset(JSON.stringify(openApiDocument(xmlNamespace)), 'application/json; charset=utf-8');

  router.get('/openapi.json', (ctx) => {
    ctx.set('Access-Control-Allow-Origin', '*'); // merchants' tooling may read it from anywhere
    send(ctx, document);
  });

  router.get('/docs', (ctx) => {
    send(ctx, page);
    ctx.set('Content-Security-Policy', `${pagePolicy(undefined)}; img-src 'self' data:`);
  });

  router.get('/docs/:file', (ctx) => {
    const file = assets.get(ctx.params.file ?? '');
    if (!file) throw new DomainError('RESOURCE_NOT_FOUND', `no resource at ${ctx.method} ${ctx.path}`);
    send(ctx, file);
  });
}
