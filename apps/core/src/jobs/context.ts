import type { EntityManager } from '@mikro-orm/postgresql';
import type { CoreServices, MerchantContext } from '../context.ts';
import type { MerchantFacts } from '../merchants/facts.ts';

/**
 * A background job's call context on behalf of one merchant: no idempotency key (there is no request to
 * replay), on the job's transaction `em` or a fork of its own, and with the merchant's facts when the job
 * read them with its rows (otherwise the first use reads them, as a request's does).
 */
export function workerContext(
  services: CoreServices,
  merchantId: number,
  em: EntityManager = services.orm.em.fork(),
  facts?: MerchantFacts,
): MerchantContext {
  const memo = facts ? { facts: Promise.resolve(facts) } : {};
  return { ...services, em, merchantId, idempotency: null, memo };
}
