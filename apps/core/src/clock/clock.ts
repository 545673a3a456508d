import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mode } from '../context.ts';
import { type CallMemo, callFacts, type LastKnownFacts, loadFacts } from '../merchants/facts.ts';

/**
 * The one source of time for the domain: real time plus the merchant's sandbox offset. In live mode the
 * offset is always zero.
 */
export function nowWithOffset(mode: Mode, offsetSeconds: number): Date {
  return new Date(Date.now() + (mode === 'live' ? 0 : offsetSeconds * 1000));
}

/** Now for a merchant outside a call (jobs, public calls that find their merchant on the way). */
export async function merchantNow(em: EntityManager, merchantId: number, mode: Mode): Promise<Date> {
  if (mode === 'live') return new Date();
  return nowWithOffset(mode, (await loadFacts(em, merchantId)).offsetSeconds);
}

/** Now for the call's merchant, from the facts the call reads once. */
export async function callNow(
  call: { merchantId: number; mode: Mode; memo: CallMemo; lastKnownFacts: LastKnownFacts },
  em: EntityManager,
): Promise<Date> {
  if (call.mode === 'live') return new Date();
  return nowWithOffset(call.mode, (await callFacts(call, em)).offsetSeconds);
}

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}
