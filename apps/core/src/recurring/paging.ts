import type { EntityManager, EntityName, FilterQuery } from '@mikro-orm/postgresql';

export interface PageRequest {
  pagesize: number;
  after?: number | undefined;
  before?: number | undefined;
  gettotal: boolean;
}

export interface Page<T> {
  items: T[];
  lastPage: boolean;
  totalResults?: number;
}

/**
 * The reference's paging: newest first; `after` an id gives the page of older items (exclusive), `before`
 * the page of newer ones; `lastPage` says whether anything lies beyond the page in its direction.
 */
export async function pageOf<T extends { id: number }>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  page: PageRequest,
): Promise<Page<T>> {
  const backwards = page.before !== undefined;
  const bound =
    page.after !== undefined ? { id: { $lt: page.after } } : backwards ? { id: { $gt: page.before } } : {};
  const rows = await em.find(entity, { $and: [where, bound] } as FilterQuery<T>, {
    orderBy: { id: backwards ? 'asc' : 'desc' } as never,
    limit: page.pagesize + 1,
  });
  const items = rows.slice(0, page.pagesize);
  if (backwards) items.reverse();
  return {
    items,
    lastPage: rows.length <= page.pagesize,
    ...(page.gettotal ? { totalResults: await em.count(entity, where) } : {}),
  };
}
