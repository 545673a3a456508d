import type { Context } from 'koa';

declare module 'koa' {
  interface DefaultContext {
    /** Where clients reach the service, e.g. https://pay.example.com: PUBLIC_BASE_URL or the listen address. */
    publicBaseUrl: string;
  }
}

/**
 * Core writes links as paths under /services/2; they leave the facade on the configured public base URL,
 * never on the request's Host, so no client can make the service hand out links to another host, and a
 * replayed answer is the same bytes whoever asks.
 */
export function publicUrl(ctx: Context, path: string): string {
  return `${ctx.publicBaseUrl}${path}`;
}

/** The listen address as a base URL: http://localhost:PORT for a wildcard listener (0.0.0.0, ::). */
export function listenAddressUrl(address: string, port: number): string {
  const wildcard = address === '0.0.0.0' || address === '::';
  const host = wildcard ? 'localhost' : address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${port}`;
}
