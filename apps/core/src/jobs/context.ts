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

/**
 * A job's contexts on its transaction `em`, one per merchant made on first use, so the events a job records
 * for one merchant share one memo (its facts read once).
 */
export function workerContextPerMerchant(
  services: CoreServices,
  em: EntityManager,
): (merchantId: number) => MerchantContext {
  const contexts = new Map<number, MerchantContext>();
  return (merchantId) => {
    const ctx = contexts.get(merchantId) ?? workerContext(services, merchantId, em);
    contexts.set(merchantId, ctx);
    return ctx;
  };
}
