import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Router from '@koa/router';
import { DomainError, formOpeningInput } from '@paywire/contracts';
import type { Context } from 'koa';
import { z } from 'zod';
import { type CoreClient, forRequest } from '../core-client.ts';
import type { RequestState } from '../http/observe.ts';
import { route } from '../http/route.ts';
import { file, scriptsAndStyles } from '../openapi/operation.ts';

/**
 * The hosted payment fields: a card form page per token and the script merchants include to embed it.
 * Public (the shopper's browser holds only the token) and static: plain files from ../hosted-fields, read
 * once. The page runs under a strict Content-Security-Policy: same-origin scripts, styles and fetches only.
 */

const assetDirectory = join(import.meta.dirname, '..', 'hosted-fields');

interface Asset {
  body: string;
  type: string;
  /** paywire-fields.js is loaded by merchants' pages; the page's own files only by the page. */
  crossOrigin: boolean;
}

const assetFiles: Record<string, Omit<Asset, 'body'>> = {
  'paywire-fields.js': { type: 'text/javascript; charset=utf-8', crossOrigin: true },
  'form.js': { type: 'text/javascript; charset=utf-8', crossOrigin: false },
  'card-rules.js': { type: 'text/javascript; charset=utf-8', crossOrigin: false },
  'form.css': { type: 'text/css; charset=utf-8', crossOrigin: false },
};

// Tokens are URL-safe base64 of at least 128 bits (see docs/conformance.md, Hosted payment fields tokens); the column holds at most 64 characters.
const tokenPattern = /^[A-Za-z0-9_-]{22,64}$/;

/** The origin allowed to frame the page, from ?origin=; undefined if none was given, null if unusable. */
function embeddingOrigin(value: unknown): string | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > 200) return null;
  try {
    const url = new URL(value);
    // Exactly an origin (so it is safe inside the CSP header): scheme, host, port and nothing else.
    if ((url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value) return url.origin;
  } catch {
    // not a URL
  }
  return null;
}

export function pagePolicy(frameAncestor: string | undefined | null): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors ${frameAncestor ?? "'none'"}`,
    "require-trusted-types-for 'script'",
  ].join('; ');
}

export function securityHeaders(ctx: Context): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer'); // the page's URL holds the token
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A page saying why there is no form, readable in the merchant's iframe; form.js tells the merchant. */
function messagePage(code: string, title: string, text: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/services/2/hosted-fields/form.css">
<script type="module" src="/services/2/hosted-fields/form.js"></script>
</head>
<body data-page="unavailable" data-error="${escapeHtml(code)}">
<main id="content">
  <section class="unavailable" role="alert">
    <h1>${escapeHtml(title)}</h1>
    <p>${escapeHtml(text)}</p>
  </section>
</main>
</body>
</html>
`;
}

export function hostedFieldsRoutes(router: Router<RequestState>, core: CoreClient): void {
  const read = (file: string) => readFileSync(join(assetDirectory, file), 'utf8');
  const assets = new Map(
    Object.entries(assetFiles).map(([file, asset]) => [file, { ...asset, body: read(file) }]),
  );
  const formPage = read('form.html');

  route(
    router,
    {
      method: 'GET',
      path: '/hosted-fields/:file',
      tag: 'Hosted payment fields',
      public: true,
      summary: 'Static files of the hosted fields: paywire-fields.js (for merchant pages) and the form files',
      answers: [file(scriptsAndStyles, 'The script or style sheet')],
    },
    (ctx) => {
      const asset = assets.get(ctx.params.file ?? '');
      if (!asset) throw new DomainError('RESOURCE_NOT_FOUND', `no resource at ${ctx.method} ${ctx.path}`);
      securityHeaders(ctx);
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('Cross-Origin-Resource-Policy', asset.crossOrigin ? 'cross-origin' : 'same-origin');
      ctx.type = asset.type;
      ctx.body = asset.body;
    },
  );

  // The card form for one token; no form for a token that cannot be used or that another origin framed first
  // (a token that expires while the shopper types is refused by the PUT, and form.js then says so).
  route(
    router,
    {
      method: 'GET',
      path: '/payment-fields-tokens/:token/form',
      tag: 'Hosted payment fields',
      public: true,
      summary: "The card form page of a token, for the merchant's iframe",
      query: z.object({
        origin: formOpeningInput.shape.origin.describe(
          'The origin of the embedding page, e.g. https://shop.example',
        ),
      }),
      answers: [
        file('text/html', 'The card form'),
        file('text/html', 'No form: the origin given is not an origin', 400),
        file('text/html', 'No form: the token is unknown, expired, used or framed by another origin', 404),
      ],
    },
    async (ctx) => {
      const origin = embeddingOrigin(ctx.query.origin);
      securityHeaders(ctx);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Content-Security-Policy', pagePolicy(origin));
      ctx.type = 'text/html; charset=utf-8';
      const token = ctx.params.token ?? '';
      if (origin === null) {
        ctx.status = 400;
        ctx.body = messagePage(
          'BAD_EMBEDDING',
          'This payment form cannot be shown here',
          'The page embedding it gave no valid origin. No card data was requested.',
        );
      } else if (
        !tokenPattern.test(token) ||
        !(await core.tokens.openForm.mutate({ token, ...(origin ? { origin } : {}) }, forRequest(ctx.state)))
          .usable
      ) {
        ctx.status = 404;
        ctx.body = messagePage(
          'TOKEN_UNUSABLE',
          'This payment form is not available',
          'The link is not valid, has expired, has already been used or belongs to another page. Return to the checkout and start again; no payment was made.',
        );
      } else {
        ctx.status = 200;
        ctx.body = formPage;
      }
    },
  );
}
