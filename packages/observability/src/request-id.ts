import { randomUUID } from 'node:crypto';

/** The header a request's id travels in, from a client to the facade and back (and from the facade to core). */
export const requestIdHeader = 'x-request-id';

const acceptable = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** A request id as sent, if it is one we can log and echo safely (bounded, no spaces or control characters). */
export function validRequestId(value: unknown): string | null {
  return typeof value === 'string' && acceptable.test(value) ? value : null;
}

export const newRequestId = (): string => randomUUID();
