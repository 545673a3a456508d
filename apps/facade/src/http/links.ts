import type { Context } from 'koa';

/**
 * Core writes links as paths under /services/2; they leave the facade on the base URL the client called,
 * so a replayed answer points at the host that asked.
 */
export function publicUrl(ctx: Context, path: string): string {
  return `${ctx.protocol}://${ctx.host}${path}`;
}
