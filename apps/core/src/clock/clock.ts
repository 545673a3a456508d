import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mode } from '../context.ts';

/** The merchant's clock offset, read once per call: one call, one notion of now, one query. */
export interface ClockMemo {
  offsetSeconds?: Promise<number>;
}

/**
 * The one source of time for the domain: real time plus the merchant's sandbox offset. In live mode the
 * offset is always zero, so no query is needed.
 */
export async function merchantNow(em: EntityManager, merchantId: number, mode: Mode): Promise<Date> {
  if (mode === 'live') return new Date();
  return new Date(Date.now() + (await offsetOf(em, merchantId)) * 1000);
}

async function offsetOf(em: EntityManager, merchantId: number): Promise<number> {
  const rows = await em.execute<{ offset: string }[]>(
    'select clock_offset_seconds as "offset" from merchant where id = ?',
    [merchantId],
  );
  return Number(rows[0]?.offset ?? 0);
}

/**
 * Now for the call's merchant. The offset is read through the caller's entity manager (inside its
 * transaction: a second pool connection per call could starve the pool) and kept for the rest of the call.
 */
export async function callNow(
  call: { merchantId: number; mode: Mode; clockMemo: ClockMemo },
  em: EntityManager,
): Promise<Date> {
  if (call.mode === 'live') return new Date();
  call.clockMemo.offsetSeconds ??= offsetOf(em, call.merchantId);
  return new Date(Date.now() + (await call.clockMemo.offsetSeconds) * 1000);
}

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}
