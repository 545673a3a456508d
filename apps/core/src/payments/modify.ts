import {
  type ModificationOutcome,
  type ModificationRequest,
  type Processor,
  RequestNotSupported,
} from '../processors/processor.ts';
import type { AttemptKind } from './attempts.ts';

export type ModificationKind = Exclude<AttemptKind, 'AUTHORIZE'>;

/** The processor call of a capture, reversal (cancel), refund or refund withdrawal, by the attempt's reference (idempotent there). */
export function modify(
  processor: Processor,
  kind: ModificationKind,
  request: ModificationRequest,
): Promise<ModificationOutcome> {
  if (kind === 'CAPTURE') return processor.capture(request);
  if (kind === 'REFUND') return processor.refund(request);
  if (kind === 'RECALL') {
    if (!processor.withdrawRefunds)
      throw new RequestNotSupported(`${processor.connector} cannot withdraw a refund it received`);
    return processor.withdrawRefunds(request);
  }
  return processor.cancel(request);
}
