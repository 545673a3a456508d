import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mode } from '../context.ts';

/**
 * The one source of time for the domain: real time plus the merchant's sandbox offset. In live mode the
 * offset is always zero, so no query is needed.
 */
export async function merchantNow(em: EntityManager, merchantId: number, mode: Mode): Promise<Date> {
  if (mode === 'live') return new Date();
  const rows = await em.execute<{ offset: string }[]>(
    'select clock_offset_seconds as "offset" from merchant where id = ?',
    [merchantId],
  );
  return new Date(Date.now() + Number(rows[0]?.offset ?? 0) * 1000);
}

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}
