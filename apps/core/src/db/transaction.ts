import { type EntityManager, TransactionPropagation } from '@mikro-orm/postgresql';

/**
 * A command's transaction: a new one, or the caller's when there is one (an idempotent call wraps the
 * command in its own transaction and savepoint, so a second savepoint here would only cost round trips).
 */
export function inTransaction<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
  return em.transactional(work, { propagation: TransactionPropagation.REQUIRED });
}
