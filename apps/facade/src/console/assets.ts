import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import type { Context } from 'koa';
import { pagePolicy, securityHeaders } from '../routes/hosted-fields.ts';

/** Where `npm ci` (apps/console's prepare script) builds the console. */
export const consoleBuild = join(import.meta.dirname, '..', '..', '..', 'console', 'dist');

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

interface Asset {
  body: Buffer;
  type: string;
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

const notBuilt = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Paywire console not built</title></head>
<body><main><h1>The console is not built</h1>
<p>Run <code>npm ci</code> (or <code>npm run build -w @paywire/console</code>) and restart the facade.</p></main></body></html>
`;

/**
 * The console's built files, read once at start: the page for every console path that is not a file (the
 * application routes itself), under the hosted fields' Content-Security-Policy (same-origin scripts and
 * styles only, no inline script, no framing). Vite names each asset by its content, so assets are cached for
 * good and the page never.
 */
export function consoleAssets(directory = consoleBuild): (ctx: Context, file: string) => void {
  const assets = new Map<string, Asset>();
  if (existsSync(join(directory, 'index.html'))) {
    for (const path of filesUnder(directory)) {
      assets.set(relative(directory, path), {
        body: readFileSync(path),
        type: types[extname(path)] ?? 'application/octet-stream',
      });
    }
  }
  const page = assets.get('index.html');
  return (ctx, file) => {
    securityHeaders(ctx);
    ctx.set('Content-Security-Policy', pagePolicy(undefined));
    const asset = assets.get(file);
    if (asset && file !== 'index.html') {
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
      ctx.type = asset.type;
      ctx.body = asset.body;
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    if (file.startsWith('assets/')) {
      ctx.status = 404; // an asset of another build: the page would only be parsed as script
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'no such console asset';
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.status = page ? 200 : 503;
    ctx.body = page?.body ?? notBuilt;
  };
}
