import { DomainError } from '@paywire/contracts';
import type { Middleware } from 'koa';

const acceptedVersions = new Set(['1.0', '2.0', '3.0']);

/** The original gateway's version header: absent is fine, a known value is fine, anything else is 400. */
export const checkApiVersion: Middleware = async (ctx, next) => {
  const version = ctx.get('bluesnap-version');
  if (version !== '' && !acceptedVersions.has(version)) {
    throw new DomainError('INVALID_API_VERSION', 'bluesnap-version must be 1.0, 2.0 or 3.0', {
      name: 'bluesnap-version',
      messageValue: version.slice(0, 20),
    });
  }
  await next();
};
